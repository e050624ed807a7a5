// Timing contenders in interleaved blocks, with the minor page faults and CPU time each one costs.
import { readdirSync, readFileSync } from 'node:fs';
import { interleaveOrder, median } from './stats.ts';

/** What a contender's `run` may return to replace its wall time with a time it measured itself (another thread's clock). */
export interface SelfTimed {
  selfTimedMs: number;
}

/** One side of a comparison: the engine, or the ceiling it is compared with. */
export interface Contender {
  name: string;
  /** One trial; `block` is the block it belongs to (0-based), or -1 for the warm-up run before the first block. */
  run: (block: number) => Promise<unknown>;
  /** Requests one trial makes (the per-request page faults and CPU divide by it); 1 if left out. */
  requests?: number;
}

/** Page faults and CPU per request, over every trial of a contender. */
export interface Usage {
  minorFaultsPerRequest: number;
  cpuMsPerRequest: number;
}

export interface Measured {
  /** Per contender (in the order given), the median trial time of each block, in ms. */
  ms: number[][];
  usage: Usage[];
}

export interface BlockOptions {
  blocks: number;
  trials: number;
  /** Child processes whose faults and CPU count too (python instances): their pids, read once per call. */
  children?: () => number[];
}

interface Snapshot {
  faults: number;
  cpuUs: number;
}

/** minflt and utime+stime (in µs) of a process, from /proc; zeros once it has gone. */
function childUsage(pid: number): Snapshot {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const tickUs = 1e6 / 100; // USER_HZ is 100 on Linux
    return { faults: Number(f[7]), cpuUs: (Number(f[11]) + Number(f[12])) * tickUs };
  } catch {
    return { faults: 0, cpuUs: 0 };
  }
}

/** This process (every thread) plus `pids`. */
function snapshot(pids: readonly number[]): Snapshot {
  const u = process.resourceUsage();
  let faults = u.minorPageFault;
  let cpuUs = u.userCPUTime + u.systemCPUTime;
  for (const pid of pids) {
    const c = childUsage(pid);
    faults += c.faults;
    cpuUs += c.cpuUs;
  }
  return { faults, cpuUs };
}

/**
 * The pids of this process's live descendants (Linux; none elsewhere), for `BlockOptions.children`: python stubs
 * are children of the helper that starts them, so grandchildren count too.
 * @example measureBlocks(contenders, { blocks: 3, trials: 20, children: childPids })
 */
export function childPids(): number[] {
  try {
    const parentOf = new Map<number, number>();
    for (const d of readdirSync('/proc')) {
      if (!/^\d+$/.test(d)) continue;
      try {
        const stat = readFileSync(`/proc/${d}/stat`, 'utf8');
        parentOf.set(Number(d), Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]));
      } catch {
        /* ended meanwhile */
      }
    }
    const ours = new Set([process.pid]);
    for (let grew = true; grew;) {
      grew = false;
      for (const [pid, parent] of parentOf)
        if (!ours.has(pid) && ours.has(parent)) {
          ours.add(pid);
          grew = true;
        }
    }
    ours.delete(process.pid);
    return [...ours];
  } catch {
    return [];
  }
}

/**
 * Runs every contender once to warm it, then `blocks` blocks of `trials` rounds in `interleaveOrder`, so the
 * engine and its ceiling alternate inside each block and drift hits both. Returns each contender's median trial
 * time per block, and its faults and CPU per request over all trials (process-wide: worker threads count).
 */
export async function measureBlocks(contenders: readonly Contender[], opts: BlockOptions): Promise<Measured> {
  for (const c of contenders) await c.run(-1);
  const pids = opts.children?.() ?? [];
  const times = contenders.map(() => Array.from({ length: opts.blocks }, () => [] as number[]));
  const faults = contenders.map(() => 0);
  const cpuUs = contenders.map(() => 0);
  for (const [b, rounds] of interleaveOrder(contenders.length, opts.blocks, opts.trials).entries())
    for (const round of rounds)
      for (const k of round) {
        const c = contenders[k]!;
        const before = snapshot(pids);
        const t = performance.now();
        const out = await c.run(b);
        const wall = performance.now() - t;
        const after = snapshot(pids);
        const self = (out as Partial<SelfTimed> | undefined)?.selfTimedMs;
        times[k]![b]!.push(typeof self === 'number' ? self : wall);
        faults[k]! += after.faults - before.faults;
        cpuUs[k]! += after.cpuUs - before.cpuUs;
      }
  return {
    ms: times.map((perBlock) => perBlock.map(median)),
    usage: contenders.map((c, k) => {
      const requests = opts.blocks * opts.trials * (c.requests ?? 1);
      return { minorFaultsPerRequest: faults[k]! / requests, cpuMsPerRequest: cpuUs[k]! / 1000 / requests };
    }),
  };
}
