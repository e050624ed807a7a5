// How fast the host runs each of this VM's CPUs, sampled between the bench's trials. On the project's 2-CPU VMs a
// CPU's speed halves for 0.1–3 s at a time, each CPU on its own and invisible to steal time (the host's other
// tenants share its core): a trial that ran in such a phase measures the host, not the engine (bench README,
// "The host's speed").
import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { median, percentile } from './stats.ts';

const PROBE = fileURLToPath(new URL('./speedProbe.mjs', import.meta.url));

/** A trial is steady when every CPU ran at least this share of its best speed just before and just after it. */
export const STEADY_SPEED = 0.85;

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

/** One CPU's samples over a run: each against that CPU's best, the share below `STEADY_SPEED`. */
export interface CpuSpeed {
  cpu: number;
  samples: number;
  /** Its full-speed duration of the probe's work, and the median one. */
  best_ms: number;
  median_ms: number;
  median_speed: number;
  min_speed: number;
  slow_share: number;
}

/**
 * The probe's durations, one row per sample (a duration per CPU), and the speeds they give: a CPU's full speed is
 * its quick end over the run (the 5th percentile of its durations, so that one freak sample does not set it), and a
 * sample's speed is the slowest CPU's share of its own full speed, at most 1.
 * @example const s = new HostSamples([0, 1]); s.add([0.25, 0.5]); s.add([0.25, 0.25]); s.speedAt(0) // 0.5
 */
export class HostSamples {
  private readonly rows: number[][] = [];

  constructor(readonly cpus: readonly number[]) {}

  /** Adds one sample; returns its index. */
  add(durationsMs: readonly number[]): number {
    if (durationsMs.length !== this.cpus.length)
      throw new Error(`a host sample needs ${this.cpus.length} durations, got ${durationsMs.length}`);
    this.rows.push([...durationsMs]);
    return this.rows.length - 1;
  }

  /** Each CPU's full-speed duration so far: the 5th percentile of its samples. */
  best(): number[] {
    return this.cpus.map((_, c) =>
      percentile(
        this.rows.map((r) => r[c]!),
        0.05,
      ),
    );
  }

  /** The speed at sample `i`: the lowest over CPUs of full speed / duration, at most 1 (every CPU at full speed). */
  speedAt(i: number): number {
    const row = this.rows[i];
    if (!row) throw new Error(`no host sample ${i}`);
    const best = this.best();
    return Math.min(1, ...row.map((ms, c) => best[c]! / ms));
  }

  /** Per CPU: its samples' speeds against its best, and the share of them below `STEADY_SPEED`. */
  summary(): CpuSpeed[] {
    const best = this.best();
    return this.cpus.map((cpu, c) => {
      const speeds = this.rows.map((r) => Math.min(1, best[c]! / r[c]!));
      return {
        cpu,
        samples: speeds.length,
        best_ms: best[c]!,
        median_ms: median(this.rows.map((r) => r[c]!)),
        median_speed: speeds.length > 0 ? median(speeds) : NaN,
        min_speed: Math.min(...speeds),
        slow_share: speeds.filter((s) => s < STEADY_SPEED).length / Math.max(1, speeds.length),
      };
    });
  }
}

/** What `measureBlocks` needs of a probe: a sample now, and the speed a sample shows. */
export interface SpeedProbe {
  sample(): Promise<number>;
  speedAt(i: number): number;
}

/**
 * One probe process per CPU this process may use, each pinned there (`taskset`) and idle between samples. A sample
 * runs the same ~0.3 ms of arithmetic on every CPU at once, so it costs the trials nothing while they run.
 */
export class HostSpeed implements SpeedProbe {
  readonly samples: HostSamples;

  private constructor(private readonly probes: ProbeProcess[]) {
    this.samples = new HostSamples(probes.map((p) => p.cpu));
  }

  /**
   * Starts the probes on `cpus` (by default the CPUs of this process's affinity) and takes `calibration` samples 50 ms
   * apart, so each CPU's full speed is known before the first trial; undefined, with the reason logged, where that
   * cannot be done (no `/proc`, no `taskset`, a CPU that cannot be pinned).
   */
  static async start(log: (line: string) => void, calibration = 20, cpus?: number[]): Promise<HostSpeed | undefined> {
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
    const speed = new HostSpeed(probes);
    for (let i = 0; i < calibration; i++) {
      await speed.sample();
      await new Promise((r) => setTimeout(r, 50));
    }
    return speed;
  }

  async sample(): Promise<number> {
    return this.samples.add(await Promise.all(this.probes.map((p) => p.run())));
  }

  speedAt(i: number): number {
    return this.samples.speedAt(i);
  }

  close(): void {
    for (const p of this.probes) p.close();
  }
}

/** One pinned probe process: a line in asks for a run, a line out is its duration. */
class ProbeProcess {
  private buffered = '';
  private stderr = '';
  /** Who waits for the next line: given the line, or the reason there will be none. */
  private waiting: ((line: string | Error) => void)[] = [];

  private constructor(
    readonly cpu: number,
    private readonly child: ChildProcessWithoutNullStreams,
  ) {
    child.stdout.setEncoding('utf8');
    child.stdout.on('data', (chunk: string) => {
      this.buffered += chunk;
      let nl: number;
      while ((nl = this.buffered.indexOf('\n')) >= 0) {
        const line = this.buffered.slice(0, nl);
        this.buffered = this.buffered.slice(nl + 1);
        this.waiting.shift()?.(line);
      }
    });
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
