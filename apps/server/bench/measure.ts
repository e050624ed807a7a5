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
  /** The warm-up before the first block: its trials, how long it took, and whether it ended steady (`warmUp`). */
  warmUp: WarmedUp;
}

export interface Measured {
  /** Per contender (in the order given), the median trial time of each block, in ms. */
  ms: number[][];
  usage: Usage[];
}

export interface BlockOptions {
  blocks: number;
  trials: number;
  /** How each contender is warmed before the first block (`WARM_UP`, field by field). */
  warm?: Partial<WarmPolicy>;
  /** Samples the host's speed before the first trial and after each, between trials (hostSpeed.ts). */
  probe?: { sample(): Promise<unknown> };
}

/**
 * When a warm-up ends. Trials run in windows of `windowMs` (at least one trial each); a window whose median trial
 * is not `gain` faster than the best window so far is flat, and the warm-up ends after `flatWindows` flat windows
 * in a row once `minMs` have passed, or at `maxMs` in any case (then it is reported as not steady).
 */
export interface WarmPolicy {
  minMs: number;
  maxMs: number;
  windowMs: number;
  gain: number;
  flatWindows: number;
}

/**
 * Warm until the contender stops getting faster. A fixed 500 ms and at most 50 trials (until 2026-12-03) left small
 * contenders measured young: V8 optimises a function once its calls have run enough of its bytecode, so code called
 * once a request (the engine's scheduler, grpc-js, the bench's own bare pipes and raw workers) was still in its
 * baseline tier through the blocks. Warmed to steady, same machine and build, medians of two full runs: the bare
 * grpc-js echo 0.92 -> 0.38 ms, the bare python pipe 0.24 -> 0.12, the raw workers' fan-out 125 -> 70 ms (README).
 * At least 2.5 s: tiering comes in steps, and with 0.5 s the windows went flat on a plateau before the last one (the
 * python round trip stopped after 279 trials at 0.64 ms a trip; with 2.5 s, 1,078 trials and 0.36 ms).
 */
const WARM_UP: WarmPolicy = { minMs: 2500, maxMs: 5000, windowMs: 250, gain: 0.03, flatWindows: 3 };

/** How one contender's warm-up went. */
export interface WarmedUp {
  trials: number;
  ms: number;
  /** Whether it ended on flat windows (false: `maxMs` ended it while the contender was still getting faster). */
  steady: boolean;
}

/**
 * Warms every contender until it is steady (`WARM_UP`), then `blocks` blocks of `trials` rounds in `interleaveOrder`,
 * so the engine and its ceiling alternate inside each block and drift hits both. Returns each contender's median trial
 * time per block, and its usage over all trials: its own process's when it reports one (a contender in a child
 * process), otherwise this process's (every thread counts).
 */
export async function measureBlocks(contenders: readonly Contender[], opts: BlockOptions): Promise<Measured> {
  const policy = { ...WARM_UP, ...opts.warm };
  const warmed: WarmedUp[] = [];
  for (const c of contenders) warmed.push(await warmUp(c, policy));
  const times = contenders.map(() => Array.from({ length: opts.blocks }, () => [] as number[]));
  const totals = contenders.map(() => ({ faults: 0, cpuUs: 0, gcMs: 0, gcCount: 0 }));
  const { probe } = opts;
  await probe?.sample();
  for (const [b, rounds] of interleaveOrder(contenders.length, opts.blocks, opts.trials).entries())
    for (const round of rounds)
      for (const k of round) {
        const stop = startUsage([]);
        const { ms, usage } = await trial(contenders[k]!, b);
        const here = await stop();
        times[k]![b]!.push(ms);
        await probe?.sample();
        const used = usage ?? here;
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
        warmUp: warmed[k]!,
      };
    }),
  };
}

/** One trial of `c`: its time (the one it measured itself, else wall) and the usage it reported, if any. */
async function trial(c: Contender, block: number): Promise<{ ms: number; usage?: TrialUsage }> {
  const t = performance.now();
  const out = (await c.run(block)) as Partial<SelfTimed> | undefined;
  const wall = performance.now() - t;
  return { ms: typeof out?.selfTimedMs === 'number' ? out.selfTimedMs : wall, usage: out?.usage };
}

/** Runs `c`'s warm-up trials (block -1) in windows until `p` finds it steady or its time is up. */
async function warmUp(c: Contender, p: WarmPolicy): Promise<WarmedUp> {
  const start = performance.now();
  const elapsed = () => performance.now() - start;
  const windows = new SteadyWindows(p);
  let trials = 0;
  for (;;) {
    const window: number[] = [];
    const opened = performance.now();
    do {
      window.push((await trial(c, -1)).ms);
      trials++;
    } while (performance.now() - opened < p.windowMs && elapsed() < p.maxMs);
    const steady = windows.add(median(window));
    if ((steady && elapsed() >= p.minMs) || elapsed() >= p.maxMs) return { trials, ms: Math.round(elapsed()), steady };
  }
}

/**
 * A warm-up's windows, each faster (by more than `gain` than the best so far) or flat; steady once the last
 * `flatWindows` were flat.
 * @example const w = new SteadyWindows(WARM_UP); w.add(2.0); w.add(1.2); w.add(1.19) // false: one flat window
 */
export class SteadyWindows {
  private best = Infinity;
  private flat = 0;

  constructor(private readonly p: Pick<WarmPolicy, 'gain' | 'flatWindows'>) {}

  /** Adds a window's median trial time; returns whether the warm-up is now steady. */
  add(medianMs: number): boolean {
    if (medianMs < this.best * (1 - this.p.gain)) {
      this.best = medianMs;
      this.flat = 0;
    } else this.flat++;
    return this.flat >= this.p.flatWindows;
  }
}
