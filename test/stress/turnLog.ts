// A studio whose main thread's long event-loop turns are logged (test/support/turnMonitor.mjs), and a bystander
// (bystanderProcess.mjs) watching it while a hostile request is in flight: what the turn survey (turnSurvey.ts) and
// the first-use stress test (hostileRound16.stress.ts) measure.
import { fork } from 'node:child_process';
import { afterAll, beforeAll, expect } from 'vitest';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { copyExamples, spawnStudio, type StudioProcess } from '../support/server.ts';
import { tempDir } from '../support/tempDir.ts';

const MONITOR = new URL('../support/turnMonitor.mjs', import.meta.url).href;
const BYSTANDER = new URL('./bystanderProcess.mjs', import.meta.url);

/** One span of the server's main thread between two ticks of the monitor (one loop iteration, or an idle wait). */
export interface Turn {
  /** Functions built from source on the main thread in the span (protobufjs's code generation among them). */
  generated: number;
  endMs: number;
  wallMs: number;
  cpuMs: number;
}

/** A studio started with the turn monitor preloaded; `turns(from, to)` reads the spans that ended in that window. */
export interface MonitoredStudio {
  studio: StudioProcess;
  grpcAddress: string;
  turns(fromMs: number, toMs: number): Turn[];
}

/**
 * Spawns `studio serve` on `repo` (and `serveArgs`) with the turn monitor (spans of over `minMs` of CPU or wall time
 * logged) and waits for its gRPC listener too.
 * @example const m = await monitoredStudio(copyExamples({ linkModels: true })); … m.turns(t0, t1)
 */
export async function monitoredStudio(repo: string, minMs = 5, serveArgs: string[] = []): Promise<MonitoredStudio> {
  const log = join(tempDir('studio-turns-'), 'turns.jsonl');
  const studio = await spawnStudio(repo, serveArgs, 180_000, {
    nodeArgs: ['--import', MONITOR],
    env: { STUDIO_TURN_LOG: log, STUDIO_TURN_MIN_MS: String(minMs) },
  });
  const deadline = Date.now() + 60_000;
  const grpcLine = () => /grpc listening on (\S+)/.exec(studio.output());
  while (!grpcLine() && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
  const grpc = grpcLine();
  if (!grpc) throw new Error(`no gRPC listener:\n${studio.output()}`);
  const turns = (fromMs: number, toMs: number): Turn[] =>
    (existsSync(log) ? readFileSync(log, 'utf8').split('\n').filter(Boolean) : [])
      .map((l) => JSON.parse(l) as Turn)
      .filter((t) => t.endMs >= fromMs && t.endMs <= toMs);
  return { studio, grpcAddress: grpc[1]!, turns };
}

/** What a bystander saw while `hostile` ran: its answers' latencies, and the window's bounds (Date.now()). */
export interface Watched<T> {
  result: T;
  fromMs: number;
  toMs: number;
  latenciesMs: number[];
}

/**
 * Runs `hostile` while a bystander in its own process asks `url`'s /v2/health/ready one request after another.
 * @example const w = await watched(studio.url, () => fetch(...)); m.turns(w.fromMs, w.toMs)
 */
export async function watched<T>(url: string, hostile: () => Promise<T>): Promise<Watched<T>> {
  const bystander = fork(BYSTANDER, [url], { stdio: 'ignore' });
  type Report = { latenciesMs: number[]; error?: string };
  const exited = new Promise<never>((_, reject) =>
    bystander.once('exit', (code) => reject(new Error(`the bystander exited (code ${code}) without a report`))),
  );
  const message = () => Promise.race([new Promise<unknown>((r) => bystander.once('message', r)), exited]);
  if ((await message()) !== 'ready') throw new Error('the bystander did not start');
  const report = message() as Promise<Report>;
  const fromMs = Date.now();
  let result: T;
  try {
    result = await hostile();
  } finally {
    bystander.send('stop');
  }
  const toMs = Date.now();
  const { latenciesMs, error } = await report;
  if (error) throw new Error(`bystander's ${error}`);
  return { result, fromMs, toMs, latenciesMs };
}

/** The `p` quantile (0-1) of `values` (0 for none). */
export function quantile(values: number[], p: number): number {
  if (values.length === 0) return 0;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil(p * sorted.length) - 1)]!;
}

/**
 * Whether a turn's CPU time can be judged: it held the CPU for at least a quarter of its wall time. A turn the
 * machine kept off the CPU for most of its length (a 6 s turn of 112 ms of CPU beside two busy loops) also reads
 * more CPU than it took on a quiet machine (17 ms there): on this VM a starved thread's CPU time grows with the wait.
 */
const judgeable = (t: Turn): boolean => t.cpuMs * 4 >= t.wallMs;

/** The span with the most CPU, and the longest by wall time, of `turns`. */
export function longest(turns: Turn[]): { cpu: Turn | undefined; wall: Turn | undefined } {
  const most = (k: 'cpuMs' | 'wallMs') =>
    turns.reduce<Turn | undefined>((a, t) => (!a || t[k] > a[k] ? t : a), undefined);
  return { cpu: most('cpuMs'), wall: most('wallMs') };
}

/**
 * Fails when `turn` (the window's longest by CPU) held over `boundMs` of CPU; a turn the machine kept mostly off the
 * CPU is reported, not judged (`judgeable`): its CPU time says more about the load than about the server.
 */
export function expectTurnUnder(turn: Turn | undefined, boundMs: number): void {
  if (turn && !judgeable(turn)) {
    console.log(`not judged: the longest turn held ${turn.cpuMs} ms of CPU in ${turn.wallMs} ms (the machine's load)`);
    return;
  }
  expect(turn?.cpuMs ?? 0).toBeLessThan(boundMs);
}

/**
 * A monitored studio over a fresh copy of the examples for the calling test file: started before its tests, stopped
 * after them. @example const studio = monitoredExamplesStudio(); … studio().turns(t0, t1)
 */
export function monitoredExamplesStudio(): () => MonitoredStudio {
  let m: MonitoredStudio | undefined;
  beforeAll(async () => {
    m = await monitoredStudio(copyExamples({ linkModels: true }));
  }, 180_000);
  afterAll(async () => {
    m?.studio.child.kill('SIGTERM');
    await m?.studio.exited;
  });
  return () => m!;
}
