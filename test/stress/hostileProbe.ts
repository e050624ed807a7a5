// What the hostile-input probe (hostile.stress.ts) measures around each hostile request: how long a bystander's
// /v2/health/ready took while it was in flight, and the server process's resident memory.
import { readFileSync } from 'node:fs';
import { get } from 'node:http';
import { expect } from 'vitest';
import type { StudioProcess } from '../support/server.ts';

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
 * The status of one `/v2/health/ready` on a connection of its own: a kept-alive one the server closes after its
 * idle timeout (while this process spent seconds building the next hostile message) fails the next ask with
 * "other side closed", which is a race of the client's, not the server failing.
 */
function askReady(url: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = get(`${url}/v2/health/ready`, { agent: false }, (res) => {
      res.resume();
      res.once('end', () => resolve(res.statusCode ?? 0));
    });
    req.once('error', reject);
  });
}

/**
 * Runs `hostile` while a bystander asks `/v2/health/ready` one request after another, and returns its result with
 * the bystander's worst latency and the server's peak RSS seen meanwhile.
 * @example const { result, worstMs } = await duringHostile(url, pid, 'large body', () => fetch(...))
 */
async function duringHostile<T>(
  url: string,
  pid: number | undefined,
  cause: string,
  hostile: () => Promise<T>,
): Promise<{ result: T; measured: Measured }> {
  let done = false;
  let worstMs = 0;
  let samples = 0;
  let peak = rssMb(pid);
  const bystander = (async () => {
    do {
      const t = performance.now();
      const status = await askReady(url);
      if (status !== 200) throw new Error(`bystander's /v2/health/ready answered ${status} during: ${cause}`);
      worstMs = Math.max(worstMs, performance.now() - t);
      samples++;
      const now = rssMb(pid);
      if (now !== undefined && (peak === undefined || now > peak)) peak = now;
      await new Promise((r) => setTimeout(r, 5));
    } while (!done);
  })();
  let result: T;
  try {
    result = await hostile();
  } finally {
    done = true;
    await bystander;
  }
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
export class HostileProbe {
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
