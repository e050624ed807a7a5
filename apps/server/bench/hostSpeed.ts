// How fast the host ran each of this VM's CPUs during the bench's comparisons, sampled between trials (and during
// the VAD ramp). On the
// project's 2-CPU VMs a CPU's speed halves for 0.1–3 s at a time, each CPU on its own and invisible to steal time:
// two runs of one build differ by how much of them fell in such phases, and this says how much did (bench README,
// "The host's speed").
import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { median, percentile } from './stats.ts';

const PROBE = fileURLToPath(new URL('./speedProbe.mjs', import.meta.url));

/**
 * The CPUs of a kernel CPU list, as `/proc/self/status` writes `Cpus_allowed_list` and `taskset -c` reads it.
 * @example parseCpuList('0-2,5') // [0, 1, 2, 5]
 */
export function parseCpuList(list: string): number[] {
  const cpus: number[] = [];
  for (const part of list.trim().split(',')) {
    const m = /^(\d+)(?:-(\d+))?$/.exec(part.trim());
    if (!m) throw new Error(`not a CPU list: '${list}'`);
    const from = Number(m[1]);
    const to = m[2] === undefined ? from : Number(m[2]);
    for (let c = from; c <= to; c++) cpus.push(c);
  }
  return cpus;
}

/** One CPU's probe times over a run, in ms: its full speed (the quick end), the median and the slow end. */
export interface CpuSpeed {
  cpu: number;
  samples: number;
  /** The 5th percentile: what the probe takes at this CPU's full speed, so that one freak sample does not set it. */
  full_speed_ms: number;
  median_ms: number;
  p90_ms: number;
  /** full_speed_ms / median_ms: how fast the CPU ran against its full speed, for half of the samples or more. */
  median_speed: number;
}

/**
 * The probe's durations, one row per sample (a duration per CPU), summed up per CPU.
 * @example const s = new HostSamples([0]); s.add([0.1]); s.add([0.2]); s.summary()[0].median_ms // 0.15
 */
export class HostSamples {
  private readonly rows: number[][] = [];
  /** When each sample was taken (`Date.now()`, comparable across processes). */
  private readonly times: number[] = [];

  constructor(readonly cpus: readonly number[]) {}

  add(durationsMs: readonly number[], at = Date.now()): void {
    if (durationsMs.length !== this.cpus.length)
      throw new Error(`a host sample needs ${this.cpus.length} durations, got ${durationsMs.length}`);
    this.rows.push([...durationsMs]);
    this.times.push(at);
  }

  /**
   * The host's speed from `from` to `to` (`Date.now()` times): over the samples taken then, the slowest CPU's median
   * against its full speed over the whole run (1 = every CPU at full speed); undefined without a sample then.
   */
  speedBetween(from: number, to: number): number | undefined {
    const rows = this.rows.filter((_, i) => this.times[i]! >= from && this.times[i]! <= to);
    if (rows.length === 0) return undefined;
    const full = this.summary().map((c) => c.full_speed_ms);
    return Math.min(...this.cpus.map((_, c) => full[c]! / median(rows.map((r) => r[c]!))));
  }

  get count(): number {
    return this.rows.length;
  }

  summary(): CpuSpeed[] {
    if (this.rows.length === 0) return [];
    return this.cpus.map((cpu, c) => {
      const ms = this.rows.map((r) => r[c]!);
      const full = percentile(ms, 0.05);
      const mid = median(ms);
      return {
        cpu,
        samples: ms.length,
        full_speed_ms: full,
        median_ms: mid,
        p90_ms: percentile(ms, 0.9),
        median_speed: full / mid,
      };
    });
  }
}

/** A CPU whose median probe ran at this fraction of its full speed or better ran at full speed for most of the run. */
const STEADY = 0.9;

/**
 * The probe's summary as the bench prints it: each CPU's median, p90 and full speed, then what they say.
 * @example describeHostSpeed(new HostSamples([0]).summary()) // '' (no sample)
 */
export function describeHostSpeed(cpus: readonly CpuSpeed[]): string {
  if (cpus.length === 0) return '';
  const ms = (v: number) => v.toFixed(3);
  const each = cpus.map(
    (c) => `CPU ${c.cpu} median ${ms(c.median_ms)} (p90 ${ms(c.p90_ms)}, full speed ${ms(c.full_speed_ms)})`,
  );
  const slow = cpus.filter((c) => c.median_speed < STEADY);
  const reading =
    slow.length === 0
      ? 'every CPU at full speed for most of the run'
      : `the host ran ${slow.map((c) => `CPU ${c.cpu} at ${c.median_speed.toFixed(2)}`).join(', ')} of full speed for half of the run or more`;
  return `ms a probe (${cpus[0]!.samples} samples): ${each.join(', ')}; ${reading}`;
}

/**
 * One probe process per CPU this process may use, each pinned there (`taskset`) and idle between samples. A sample
 * runs the same ~1 ms of arithmetic on every CPU at once; the bench takes one between two trials, never during one,
 * and during the VAD ramp (timed in the engine's process, where it cannot step between) one every 250 ms.
 */
export class HostSpeed {
  readonly samples: HostSamples;
  /** Why sampling stopped (a probe failed); the bench goes on without it. */
  private stopped: string | undefined;

  private constructor(
    private readonly probes: ProbeProcess[],
    private readonly log: (line: string) => void,
  ) {
    this.samples = new HostSamples(probes.map((p) => p.cpu));
  }

  /**
   * Starts the probes on `cpus` (by default the CPUs of this process's affinity); undefined, with the reason logged,
   * where that cannot be done (no `/proc`, no `taskset`, a CPU that cannot be pinned).
   */
  static async start(log: (line: string) => void, cpus?: number[]): Promise<HostSpeed | undefined> {
    if (!cpus) {
      try {
        const list = /^Cpus_allowed_list:\s*(.+)$/m.exec(readFileSync('/proc/self/status', 'utf8'))?.[1];
        if (!list) throw new Error('/proc/self/status has no Cpus_allowed_list');
        cpus = parseCpuList(list);
      } catch (err) {
        log(`host speed not sampled: ${(err as Error).message}`);
        return undefined;
      }
    }
    const started = await Promise.allSettled(cpus.map((cpu) => ProbeProcess.start(cpu)));
    const probes = started.flatMap((s) => (s.status === 'fulfilled' ? [s.value] : []));
    const failed = started.find((s): s is PromiseRejectedResult => s.status === 'rejected');
    if (failed) {
      for (const p of probes) p.close();
      log(`host speed not sampled: ${(failed.reason as Error).message}`);
      return undefined;
    }
    return new HostSpeed(probes, log);
  }

  /** Runs the probe on every CPU at once and keeps the durations; after a probe fails, nothing (said once). */
  async sample(): Promise<void> {
    if (this.stopped) return;
    try {
      this.samples.add(await Promise.all(this.probes.map((p) => p.run())));
    } catch (err) {
      this.stopped = (err as Error).message;
      this.log(`host speed no longer sampled after ${this.samples.count} samples: ${this.stopped}`);
      this.close();
    }
  }

  /**
   * Samples every `ms` until the returned function is called (for a scenario timed in another process, whose trials
   * this one cannot sample between); each sample costs each CPU ~1 ms.
   */
  every(ms: number): () => Promise<void> {
    let on = true;
    const loop = (async () => {
      while (on && !this.stopped) {
        await this.sample();
        await new Promise((r) => setTimeout(r, ms));
      }
    })();
    return async () => {
      on = false;
      await loop;
    };
  }

  close(): void {
    for (const p of this.probes) p.close();
  }
}

/** One pinned probe process: a line in asks for a run, a line out is its duration. */
class ProbeProcess {
  private stderr = '';
  /** Who waits for the next line: given the line, or the reason there will be none. */
  private waiting: ((line: string | Error) => void)[] = [];

  private constructor(
    readonly cpu: number,
    private readonly child: ChildProcessWithoutNullStreams,
  ) {
    createInterface({ input: child.stdout }).on('line', (line) => this.waiting.shift()?.(line));
    child.stderr.on('data', (d: Buffer) => (this.stderr += d.toString()));
    child.stdin.on('error', () => {}); // a probe that is gone: its exit fails whoever waits
    const gone = (why: string) => {
      for (const w of this.waiting.splice(0)) w(new Error(`the probe on CPU ${cpu} ${why}`));
    };
    child.once('error', (err) => gone(`could not start (taskset pins it): ${err.message}`));
    child.once('exit', (code) => gone(`exited (${code}) ${this.stderr.trim().split('\n')[0] ?? ''}`.trim()));
  }

  static start(cpu: number): Promise<ProbeProcess> {
    const child = spawn('taskset', ['-c', String(cpu), process.execPath, PROBE], { stdio: 'pipe' });
    const p = new ProbeProcess(cpu, child);
    return p.next().then((line) => {
      if (line !== 'ready') throw new Error(`the probe on CPU ${cpu} said '${line}' instead of ready`);
      return p;
    });
  }

  async run(): Promise<number> {
    const answer = this.next();
    this.child.stdin.write('\n');
    const line = await answer;
    const ms = Number(line);
    if (!Number.isFinite(ms) || ms <= 0) throw new Error(`the probe on CPU ${this.cpu} answered '${line}'`);
    return ms;
  }

  close(): void {
    this.child.stdin.end();
  }

  private next(): Promise<string> {
    return new Promise((resolve, reject) =>
      this.waiting.push((line) => (line instanceof Error ? reject(line) : resolve(line))),
    );
  }
}
