import type { Tensor } from '@ensemble-studio/core';
import { noCacheCounters, type ModelStats } from './Metrics.ts';
import type { InferResult } from './modelRuntimeTypes.ts';
import { ResponseCache } from './responseCache.ts';

/** What a request's lookup found: its result (a hit, counted), or how to store the result once it comes (a miss). */
export type CacheAnswer = { hit: InferResult } | { hit?: undefined; store: (r: InferResult) => InferResult };

/** Runtimes made so far: each model runtime keys its entries with its own number. */
let runtimes = 0;

/**
 * One model's use of the server's response cache (`response_cache { enable: true }`), as Triton's scheduler uses it:
 * a request is looked up before it is queued; a hit is answered from the cache (a success with no execution, its
 * lookup's time counted as `cache_hit`), a miss runs and its result is stored (the lookup's and the insertion's time
 * counted as `cache_miss`, unless another request stored the same key first). A model loaded again (its files edited,
 * the repository reloaded) starts with none of its earlier runtime's entries, which age out of the cache: Triton keeps
 * serving them, by name and version alone.
 */
export class ModelCache {
  private readonly runtime = ++runtimes;

  constructor(
    private readonly cache: ResponseCache,
    private readonly model: string,
    private readonly version: number,
    private readonly stats: ModelStats,
  ) {
    stats.cache ??= noCacheCounters();
  }

  /** Looks `inputs` up; `rows` is the request's batch size, reported by a hit as the execution's would be. */
  answer(inputs: Readonly<Record<string, Tensor>>, rows: number): CacheAnswer {
    const t0 = process.hrtime.bigint();
    const key = ResponseCache.keyOf(`${this.model}\u0000${this.runtime}`, this.version, inputs);
    const outputs = this.cache.lookup(key);
    const lookupNs = Number(process.hrtime.bigint() - t0);
    if (outputs) {
      this.stats.cacheHit(lookupNs);
      return { hit: { outputs, queueMs: 0, computeMs: 0, batchSize: rows, instance: 'response cache' } };
    }
    return {
      store: (r) => {
        const t1 = process.hrtime.bigint();
        const outcome = this.cache.insert(key, r.outputs);
        if (outcome !== 'exists') this.stats.cacheMiss(lookupNs + Number(process.hrtime.bigint() - t1));
        return r;
      },
    };
  }
}
