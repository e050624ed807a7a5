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
}

/**
 * Runs every contender once to warm it, then `blocks` blocks of `trials` rounds in `interleaveOrder`, so the
 * engine and its ceiling alternate inside each block and drift hits both. Returns each contender's median trial
 * time per block, and its usage over all trials: its own process's when it reports one (a contender in a child
 * process), otherwise this process's (every thread counts).
 */
export async function measureBlocks(contenders: readonly Contender[], opts: BlockOptions): Promise<Measured> {
  for (const c of contenders) await c.run(-1);
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
