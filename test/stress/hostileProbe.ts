// What the hostile-input probe (hostile.stress.ts) measures around each hostile request: how long a bystander's
// /v2/health/ready took while it was in flight, and the server process's resident memory.
import { fork } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, expect } from 'vitest';
import type { StudioProcess } from '../support/server.ts';

const BYSTANDER = new URL('./bystanderProcess.mjs', import.meta.url);

// A stall detector, not a performance goal: a request that blocks the server's event loop shows as seconds here.
const STALL_MS = 1000;

/** One hostile request's measurement. */
export interface Measured {
  cause: string;
  worstMs: number;
  samples: number;
  rssMb: number | undefined;
}

/** Resident memory of process `pid` in MB (Linux /proc), undefined where it cannot be read. */
function rssMb(pid: number | undefined): number | undefined {
  if (pid === undefined) return undefined;
  try {
    const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Math.round(Number(m[1]) / 1024) : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Runs `hostile` while a bystander (bystanderProcess.mjs, a process of its own: in this one, the hostile request's
 * own sending would count as the server's stall) asks `/v2/health/ready` one request after another, and returns its
 * result with the bystander's worst latency and the server's peak RSS seen meanwhile.
 * @example const { result, measured } = await duringHostile(url, pid, 'large body', () => fetch(...))
 */
async function duringHostile<T>(
  url: string,
  pid: number | undefined,
  cause: string,
  hostile: () => Promise<T>,
): Promise<{ result: T; measured: Measured }> {
  const bystander = fork(BYSTANDER, [url], { stdio: 'ignore' });
  type Report = { worstMs: number; samples: number; error?: string };
  const exited = new Promise<never>((_, reject) =>
    bystander.once('exit', (code) => reject(new Error(`the bystander exited (code ${code}) without a report`))),
  );
  const message = () => Promise.race([new Promise<unknown>((r) => bystander.once('message', r)), exited]);
  // Watching before the hostile request starts (its first answer is in).
  const first = await message();
  if (first !== 'ready') throw new Error(`bystander's ${(first as Report).error} before: ${cause}`);
  const report = message() as Promise<Report>;
  let peak = rssMb(pid);
  const sampler = setInterval(() => {
    const now = rssMb(pid);
    if (now !== undefined && (peak === undefined || now > peak)) peak = now;
  }, 5);
  let result: T;
  try {
    result = await hostile();
  } finally {
    clearInterval(sampler);
    bystander.send('stop');
  }
  const { worstMs, samples, error } = await report;
  if (error) throw new Error(`bystander's ${error} during: ${cause}`);
  return { result, measured: { cause, worstMs: Math.round(worstMs), samples, rssMb: peak } };
}

/** A JSON infer body of about `bytes` bytes: `x` FP32 [rows, 64] of 0.5s, built as text (no 60 MB object in memory). */
export function largeInferBody(bytes: number): string {
  const rows = Math.floor(bytes / 4 / 64);
  return `{"inputs":[{"name":"x","datatype":"FP32","shape":[${rows},64],"data":[${'0.5,'.repeat(rows * 64 - 1)}0.5]}]}`;
}

/** The measurements as a table for the test log. */
function measuredTable(rows: Measured[]): string {
  const lines = rows.map(
    (m) =>
      `  ${m.cause.padEnd(44)} bystander worst ${String(m.worstMs).padStart(5)} ms (${m.samples} asks)  RSS ${m.rssMb ?? '?'} MB`,
  );
  const worst = rows.reduce((a, m) => (m.worstMs > a.worstMs ? m : a), rows[0]!);
  return `hostile probe:\n${lines.join('\n')}\n  worst: ${worst.worstMs} ms during "${worst.cause}"`;
}

/**
 * The probe of one stress file: `run(cause, hostile)` sends a hostile request with the bystander watching and fails
 * when it stalled; `stop()` ends the studio and prints every measurement.
 * @example const probe = new HostileProbe(() => studio); await probe.run('1 prototype names', () => fetch(...))
 */
class HostileProbe {
  private readonly measured: Measured[] = [];

  constructor(private readonly studio: () => StudioProcess | undefined) {}

  async run<T>(cause: string, hostile: () => Promise<T>): Promise<T> {
    const studio = this.studio()!;
    const { result, measured } = await duringHostile(studio.url, studio.child.pid, cause, hostile);
    this.measured.push(measured);
    expect(measured.worstMs, `bystander stalled during: ${cause}`).toBeLessThan(STALL_MS);
    return result;
  }

  async stop(): Promise<void> {
    const studio = this.studio();
    if (studio) {
      studio.child.kill('SIGTERM');
      await studio.exited;
    }
    if (this.measured.length > 0) console.log(measuredTable(this.measured));
  }
}

/**
 * The studio a stress file probes: `start` spawns it before the file's tests; after them it is stopped and the
 * probe's measurements are printed. `studio` reads the running process (in a test or a hook); `probe` sends one
 * hostile request with the bystander watching (`HostileProbe.run`).
 * @example const { studio, probe } = probedStudio(() => spawnStudio(copyExamples({ linkModels: true })));
 */
export function probedStudio(start: () => Promise<StudioProcess>): {
  studio: StudioProcess;
  probe: <T>(cause: string, hostile: () => Promise<T>) => Promise<T>;
} {
  let running: StudioProcess | undefined;
  const session = new HostileProbe(() => running);
  beforeAll(async () => {
    running = await start();
  }, 180_000);
  afterAll(() => session.stop());
  const studio = new Proxy({} as StudioProcess, {
    get: (_, key) => {
      if (!running) throw new Error('the probed studio starts in beforeAll: use it inside a test or a hook');
      const value: unknown = Reflect.get(running, key);
      return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(running) : value;
    },
  });
  return { studio, probe: (cause, hostile) => session.run(cause, hostile) };
}
