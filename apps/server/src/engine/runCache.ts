import type { GraphDoc, Tensor } from '@ensemble-studio/core';
import type { GraphStats } from './graphStats.ts';
import { countCache } from './Metrics.ts';
import { ResponseCache } from './responseCache.ts';
import type { RunRequest } from './types.ts';

/** What a run's lookup found: its outputs (a hit, counted), or how to store them once the run completes (a miss). */
export type RunCacheAnswer =
  { hit: Record<string, Tensor> } | { hit?: undefined; store: (outputs: Record<string, Tensor>) => void };

/**
 * Triton's top-level response cache of an ensemble (`response_cache { enable: true }` in the ensemble's own config:
 * `RunRequest.cache`): a run whose inputs (and requested outputs) the graph has answered before gets that answer
 * without running a step; a completed run's outputs are kept. Hits and misses count in the graph's statistics as
 * Triton counts them. Each graph document keys its own entries, and so does each generation of the models (`reset`
 * when a model's runtime is replaced): an edited graph or a reloaded model never answers with an older one's outputs.
 */
export class RunCache {
  private readonly docs = new WeakMap<GraphDoc, number>();
  private docCount = 0;
  private generation = 0;

  constructor(
    private readonly cache: ResponseCache,
    private readonly stats: GraphStats,
  ) {}

  /** A model's runtime was replaced: what the graphs answered before came from the old one. */
  reset(): void {
    this.generation++;
  }

  answer(req: RunRequest): RunCacheAnswer {
    const t0 = process.hrtime.bigint();
    let doc = this.docs.get(req.graph);
    if (doc === undefined) this.docs.set(req.graph, (doc = ++this.docCount));
    const wanted = req.requestedOutputs ? [...req.requestedOutputs].sort().join('\u0000') : '*';
    const key = ResponseCache.keyOf(
      `graph\u0000${req.graph.name}\u0000${doc}\u0000${this.generation}\u0000${wanted}`,
      1,
      req.inputs,
    );
    const outputs = this.cache.lookup(key);
    const lookupNs = Number(process.hrtime.bigint() - t0);
    const counters = this.stats.cacheOf(req.graph.name);
    if (outputs) {
      countCache(counters, true, lookupNs);
      return { hit: outputs };
    }
    return {
      store: (out) => {
        const t1 = process.hrtime.bigint();
        if (this.cache.insert(key, out) === 'exists') return;
        countCache(counters, false, lookupNs + Number(process.hrtime.bigint() - t1));
      },
    };
  }
}
