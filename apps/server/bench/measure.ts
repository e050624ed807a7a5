// Timing contenders in interleaved blocks, with the minor page faults, CPU time and garbage collection each one
// costs the process it runs in.
import { interleaveOrder, median } from './stats.ts';
import { startUsage, type TrialUsage } from './usage.ts';

/**
 * What a contender's `run` may return: a time it measured itself (another thread's or process's clock) to replace
 * its wall time, and, for a contender in a process of its own (`ContenderProcess`), that process's usage.
 */
export interface SelfTimed {
  selfTimedMs: number;
  usage?: TrialUsage;
}

/** One side of a comparison: the engine, or the ceiling it is compared with. */
export interface Contender {
  name: string;
  /** One trial; `block` is the block it belongs to (0-based), or -1 for the warm-up run before the first block. */
  run: (block: number) => Promise<unknown>;
  /** Requests one trial makes (the per-request page faults and CPU divide by it); 1 if left out. */
  requests?: number;
}

/** Page faults and CPU per request, and garbage collection per trial, over every trial of a contender. */
export interface Usage {
  minorFaultsPerRequest: number;
  cpuMsPerRequest: number;
  gcMsPerTrial: number;
  gcPerTrial: number;
}

export interface Measured {
  /** Per contender (in the order given), the median trial time of each block, in ms. */
  ms: number[][];
  usage: Usage[];
}

export interface BlockOptions {
  blocks: number;
  trials: number;
  /** Warm-up per contender before the first block: trials until this much time has passed (at least one). */
  warmMs?: number;
}

/**
 * The warm-up's default length. One warm-up trial was too few: the engine's batched sequences took 91, 58, 57, 64 ms
 * in block 0, 57, 23, 24, 27 in block 1 and 17–22 after (its code and heap reaching their steady state over some
 * ten thousand requests), so block 0 measured the warm-up and the median of three blocks swung with it
 * (`oldest_batching_speedup` 2.6 in a full bench, 4.6 with `--only batching` on a fresh engine).
 */
const WARM_MS = 500;
/** At most this many warm-up trials (a contender of microseconds reaches its steady state long before). */
const MAX_WARM_TRIALS = 50;

/**
 * Warms every contender (WARM_MS of trials), then `blocks` blocks of `trials` rounds in `interleaveOrder`, so the
 * engine and its ceiling alternate inside each block and drift hits both. Returns each contender's median trial
 * time per block, and its usage over all trials: its own process's when it reports one (a contender in a child
 * process), otherwise this process's (every thread counts).
 */
export async function measureBlocks(contenders: readonly Contender[], opts: BlockOptions): Promise<Measured> {
  for (const c of contenders) await warmUp(c, opts.warmMs ?? WARM_MS);
  const times = contenders.map(() => Array.from({ length: opts.blocks }, () => [] as number[]));
  const totals = contenders.map(() => ({ faults: 0, cpuUs: 0, gcMs: 0, gcCount: 0 }));
  for (const [b, rounds] of interleaveOrder(contenders.length, opts.blocks, opts.trials).entries())
    for (const round of rounds)
      for (const k of round) {
        const stop = startUsage([]);
        const t = performance.now();
        const out = (await contenders[k]!.run(b)) as Partial<SelfTimed> | undefined;
        const wall = performance.now() - t;
        const here = await stop();
        times[k]![b]!.push(typeof out?.selfTimedMs === 'number' ? out.selfTimedMs : wall);
        const used = out?.usage ?? here;
        const sum = totals[k]!;
        sum.faults += used.faults;
        sum.cpuUs += used.cpuUs;
        sum.gcMs += used.gcMs;
        sum.gcCount += used.gcCount;
      }
  const trials = opts.blocks * opts.trials;
  return {
    ms: times.map((perBlock) => perBlock.map(median)),
    usage: contenders.map((c, k) => {
      const requests = trials * (c.requests ?? 1);
      const sum = totals[k]!;
      return {
        minorFaultsPerRequest: sum.faults / requests,
        cpuMsPerRequest: sum.cpuUs / 1000 / requests,
        gcMsPerTrial: sum.gcMs / trials,
        gcPerTrial: sum.gcCount / trials,
      };
    }),
  };
}

/** Runs `c`'s warm-up trial (block -1) until `warmMs` have passed, at least once and at most MAX_WARM_TRIALS times. */
async function warmUp(c: Contender, warmMs: number): Promise<void> {
  const start = performance.now();
  for (let n = 0; n < MAX_WARM_TRIALS; n++) {
    await c.run(-1);
    if (performance.now() - start >= warmMs) return;
  }
}
