// What a trial costs the process it runs in: minor page faults and CPU (every thread, and given descendant
// processes), and the V8 garbage collections that started during it.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { type PerformanceEntry, PerformanceObserver } from 'node:perf_hooks';

/** One trial's cost to its process. */
export interface TrialUsage {
  faults: number;
  cpuUs: number;
  /** Time of the V8 collections that started during the trial, and how many there were. */
  gcMs: number;
  gcCount: number;
}

interface Snapshot {
  faults: number;
  cpuUs: number;
}

/** minflt and utime+stime (in µs) of a process, from /proc; zeros once it has gone. */
function processUsage(pid: number): Snapshot {
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
    const c = processUsage(pid);
    faults += c.faults;
    cpuUs += c.cpuUs;
  }
  return { faults, cpuUs };
}

/**
 * The pids of this process's live descendants (Linux; none elsewhere): python stubs are children of the helper
 * that starts them, so grandchildren count too.
 * @example const stop = startUsage(childPids());
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
 * This process's descendants, scanned from /proc only when they may have changed: at first, after a warm-up trial
 * (a role may start its python processes on its first request) and after a trial in which one of them had gone.
 * Scanned before every trial, the ~110 reads of /proc (2.5–12 ms of CPU here) raised the python round trip timed
 * right after by 0.3–0.6 ms at load 8 (server README, "What the bench's Python round trip contains").
 * @example const d = new DescendantPids(); const stop = startUsage(d.pids()); await trial(); d.afterTrial(warmUp);
 */
export class DescendantPids {
  private list: number[] | undefined;
  /** How many times /proc has been scanned. */
  scans = 0;

  constructor(private readonly scan: () => number[] = childPids) {}

  pids(): number[] {
    return (this.list ??= this.rescan());
  }

  /** Scans again, now (outside the trial), after a warm-up trial or when one of the processes listed has gone. */
  afterTrial(warmUp: boolean): void {
    if (warmUp || !this.list?.every((pid) => existsSync(`/proc/${pid}`))) this.list = this.rescan();
  }

  private rescan(): number[] {
    this.scans++;
    return this.scan();
  }
}

let observer: PerformanceObserver | undefined;
let gcEntries: PerformanceEntry[] = [];

/**
 * Starts counting a trial's usage; the function it returns stops the count (call it right after the trial) and
 * resolves once V8 has reported the collections that ran meanwhile (they are queued after each collection ends).
 * @example const stop = startUsage([]); await trial(); const usage = await stop();
 */
export function startUsage(pids: readonly number[]): () => Promise<TrialUsage> {
  if (!observer) {
    observer = new PerformanceObserver((list) => gcEntries.push(...list.getEntries()));
    observer.observe({ entryTypes: ['gc'] });
  }
  const before = snapshot(pids);
  const t0 = performance.now();
  return async () => {
    const t1 = performance.now();
    const after = snapshot(pids);
    await new Promise(setImmediate);
    gcEntries.push(...observer!.takeRecords());
    const during = gcEntries.filter((e) => e.startTime >= t0 && e.startTime < t1);
    gcEntries = gcEntries.filter((e) => e.startTime >= t1);
    return {
      faults: after.faults - before.faults,
      cpuUs: after.cpuUs - before.cpuUs,
      gcMs: during.reduce((s, e) => s + e.duration, 0),
      gcCount: during.length,
    };
  };
}
