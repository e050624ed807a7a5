// The VAD stream measurements of the bench: real-time streams at rising levels until one fails (chunk latency),
// and a closed loop of 64 streams against the VAD session called directly on batches of 64 (throughput, and the
// main thread's CPU per chunk: what the engine costs the event loop). The engine's streams run in its process;
// the session on batches of 64 in the direct loop's.
import { readFileSync } from 'node:fs';
import * as ort from 'onnxruntime-node';
import type { Tensor } from '@ensemble-studio/core';
import type { Engine } from '../src/engine/index.ts';
import { vadGraph } from '../src/testing/engineGraphs.ts';
import { mulberry32 } from '../src/onnx/synthetic.ts';
import type { BenchContext, DirectSide, EngineSide } from './context.ts';
import type { Task } from './contenderProcess.ts';
import { measureBlocks } from './measure.ts';
import { median, perBlock, percentile } from './stats.ts';

const CHUNK = 576;
const PERIOD_MS = 32;
const P99_LIMIT_MS = 20;
/** Levels tried in turn until one fails; the ladder ends far beyond what 2 cores carry. */
const LEVELS = [10, 25, 50, 100, 200, 300, 400, 600, 800, 1200, 1600, 2400, 3200];
/** Distinct recordings; streams beyond this many replay one (as sequences of their own). */
const RECORDINGS = 64;

const now = () => performance.now();
const sleep = (ms: number) => new Promise((r) => setTimeout(r, Math.max(0, ms)));
const VAD = vadGraph();

/** Each stream's audio exists before it plays (a recording, a microphone buffer): generating it in the timed loop would cost the very thread being measured. */
function recordings(count: number, chunks: number): Float32Array[] {
  return Array.from({ length: count }, (_, s) => {
    const r = mulberry32(s + 1);
    // A plain loop: ~8x quicker than Float32Array.from with a callback (80 ms per level at 64 recordings).
    const a = new Float32Array(CHUNK * chunks);
    for (let i = 0; i < a.length; i++) a[i] = (r() - 0.5) * 0.2;
    return a;
  });
}

async function sendChunk(engine: Engine, audio: Float32Array, k: number, chunks: number, id: string): Promise<void> {
  const chunk: Tensor = { datatype: 'FP32', shape: [CHUNK], data: audio.subarray(CHUNK * k, CHUNK * (k + 1)) };
  const r = await engine.run({
    graph: VAD,
    inputs: { audio: chunk },
    sequence: { id, start: k === 0, end: k === chunks - 1 },
  });
  if (r.status !== 'completed') throw new Error(`vad: ${r.error?.code} ${r.error?.message}`);
}

/** One level's outcome: chunk latency p99 (from each chunk's due time), and whether a stream ended behind real time. */
export interface LevelResult {
  p99Ms: number;
  /** Some stream's last chunk finished more than one period after it was due: that stream could not keep up. */
  behind: boolean;
}

let levelRound = 0;

/** `streams` concurrent real-time VAD streams (a 576-sample chunk every 32 ms each, staggered) for `chunks` chunks. */
async function vadLevel(engine: Engine, streams: number, chunks: number): Promise<LevelResult> {
  const lat: number[] = [];
  let lastWorst = 0;
  const audio = recordings(Math.min(streams, RECORDINGS), chunks);
  const round = levelRound++;
  const t0 = now() + 50;
  await Promise.all(
    Array.from({ length: streams }, async (_, s) => {
      const offset = (s * PERIOD_MS) / streams;
      for (let k = 0; k < chunks; k++) {
        const due = t0 + offset + k * PERIOD_MS;
        await sleep(due - now());
        await sendChunk(engine, audio[s % audio.length]!, k, chunks, `rt-${round}-${s}`);
        const late = now() - due;
        lat.push(late);
        if (k === chunks - 1) lastWorst = Math.max(lastWorst, late);
      }
    }),
  );
  return { p99Ms: percentile(lat, 0.99), behind: lastWorst > PERIOD_MS };
}

/** One level's trial, as printed and kept in the JSON's `vad_levels`. */
interface LevelTrial {
  streams: number;
  trial: number;
  chunk_p99_ms: number;
  behind: boolean;
  held: boolean;
  /** When it ran (`Date.now()`), to be matched with the host's speed then. */
  started: number;
  ended: number;
  /** The host's speed meanwhile (hostSpeed.ts `speedBetween`), where it was sampled. */
  host_speed?: number;
}

/**
 * The engine's side of the ramp: `vad_ramp` runs levels from 10 streams up until one fails — chunk p99 over 20 ms
 * or a stream behind real time — in two trials running (one stall of this VM delays a chunk of every stream at
 * once and alone puts a short trial over; a second trial tells such a stall from a level the engine cannot carry).
 */
function vadRampTask({ engine, quick, log }: EngineSide): Task {
  return async () => {
    const chunks = quick ? 20 : 40;
    const levels: LevelTrial[] = [];
    let sustained = 0;
    for (const n of LEVELS) {
      let held = false;
      for (let trial = 1; trial <= 2 && !held; trial++) {
        const started = Date.now();
        const r = await vadLevel(engine, n, chunks);
        held = r.p99Ms <= P99_LIMIT_MS && !r.behind;
        levels.push({ streams: n, trial, chunk_p99_ms: r.p99Ms, behind: r.behind, held, started, ended: Date.now() });
        log(
          `vad ${n} streams, trial ${trial}: chunk p99 ${r.p99Ms.toFixed(2)} ms${r.behind ? ', a stream fell behind real time' : ''}${held ? ' — held' : ''}`,
        );
      }
      if (!held) break;
      sustained = n;
    }
    return { levels, sustained };
  };
}

/**
 * `vad_streams_realtime`: the ramp's last level held, in the engine's process; every level's p99 is printed and kept
 * in the JSON's `vad_levels`. Printed beside `vad_direct_batched_streams` where `vadThroughputBench` ran first. With a
 * host probe, the host is sampled every 250 ms meanwhile, and each level carries the host's speed while it ran
 * (`host_speed`): a level that failed at 0.5 failed on half a CPU.
 */
export async function vadRampBench(ctx: BenchContext): Promise<void> {
  const engine = await ctx.host('engine');
  const stopSampling = ctx.probe?.every(250);
  const { levels, sustained } = await engine
    .call<{ levels: LevelTrial[]; sustained: number }>('vad_ramp')
    .finally(() => stopSampling?.());
  ctx.report.add('vad_streams_realtime', [sustained], ['vad_direct_batched_streams']);
  if (ctx.probe) {
    for (const l of levels) {
      const speed = ctx.probe.samples.speedBetween(l.started, l.ended);
      if (speed !== undefined) l.host_speed = speed;
    }
    const each = levels.map(
      (l) =>
        `${l.streams}${l.held ? '' : '×'} ${l.chunk_p99_ms.toFixed(1)} ms${l.host_speed === undefined ? '' : ` @ ${l.host_speed.toFixed(2)}`}`,
    );
    ctx.log(`vad levels, chunk p99 @ the host's speed meanwhile (× = failed): ${each.join(', ')}`);
  }
  ctx.report.extra.vad_levels = levels;
}

/** CPU time of this process's main thread in ms (Linux; undefined elsewhere). */
function mainThreadCpuMs(): number | undefined {
  try {
    const stat = readFileSync(`/proc/self/task/${process.pid}/stat`, 'utf8');
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(f[11]) + Number(f[12])) * 10; // utime + stime, in 10 ms ticks
  } catch {
    return undefined;
  }
}

const B = 64;
const closedLoopChunks = (quick: boolean) => (quick ? 40 : 100);

/**
 * The engine's side: `vad_closed_loop`, 64 streams each sending its next chunk as soon as the last returns, noting
 * the main thread's CPU per chunk of each measured trial (`vad_main_thread_us`, per block); and `vad_ramp`.
 */
export function vadEngineTasks(side: EngineSide): Record<string, Task> {
  const chunks = closedLoopChunks(side.quick);
  const audio = recordings(B, chunks);
  let round = 0;
  const mains: number[][] = Array.from({ length: side.blocks }, () => []);
  return {
    vad_closed_loop: async (block) => {
      const r = round++;
      const cpu0 = mainThreadCpuMs();
      await Promise.all(
        audio.map(async (a, s) => {
          for (let k = 0; k < chunks; k++) await sendChunk(side.engine, a, k, chunks, `loop-${r}-${s}`);
        }),
      );
      const cpu1 = mainThreadCpuMs();
      if (block >= 0 && cpu0 !== undefined && cpu1 !== undefined)
        mains[block]!.push(((cpu1 - cpu0) * 1000) / (B * chunks));
    },
    vad_main_thread_us: async () => mains,
    vad_ramp: vadRampTask(side),
  };
}

/** The direct side: `vad_direct_batched`, the VAD session on batches of 64 for as many chunks as the closed loop sends. */
export function vadDirectTasks({ direct, quick }: DirectSide): Record<string, Task> {
  const chunks = closedLoopChunks(quick);
  const session: ort.InferenceSession = direct.vad!;
  const r = mulberry32(7);
  const feeds = {
    input: new ort.Tensor(
      'float32',
      Float32Array.from({ length: B * CHUNK }, () => (r() - 0.5) * 0.2),
      [B, CHUNK],
    ),
    state: new ort.Tensor('float32', new Float32Array(B * 256), [B, 2, 128]),
  };
  return {
    vad_direct_batched: async () => {
      for (let k = 0; k < chunks; k++) await session.run(feeds);
    },
  };
}

/**
 * `vad_throughput_vs_direct_batched`: the engine's closed loop of 64 streams against the VAD session called
 * directly on batches of 64 (the most one batch holds) for as many chunks, alternating in blocks; the real-time
 * streams that one thread's rate carries (`vad_direct_batched_streams`, printed beside the ramp); and
 * `vad_main_thread_us_per_chunk`, the engine's main-thread CPU per chunk of the closed loop.
 */
export async function vadThroughputBench(ctx: BenchContext): Promise<void> {
  const [engine, direct] = await Promise.all([ctx.host('engine'), ctx.host('direct')]);
  const requests = B * closedLoopChunks(ctx.quick);
  const contenders = [engine.contender('vad_closed_loop', requests), direct.contender('vad_direct_batched', requests)];
  const m = ctx.report.addMeasured(
    contenders,
    await measureBlocks(contenders, { blocks: ctx.blocks, trials: ctx.quick ? 2 : 3 }),
  );
  const perS = (ms: number) => requests / (ms / 1000);
  ctx.report.add('vad_direct_batched_chunks_per_s', m.vad_direct_batched!.map(perS));
  // Beside the ramp: the real-time streams (a chunk every PERIOD_MS each) that one thread calling the bare session
  // on batches carries, what a core does with the model alone (the engine runs two instances and its main thread).
  ctx.report.add(
    'vad_direct_batched_streams',
    m.vad_direct_batched!.map((ms) => (perS(ms) * PERIOD_MS) / 1000),
  );
  ctx.report.add('vad_closed_loop_chunks_per_s', m.vad_closed_loop!.map(perS));
  ctx.report.add(
    'vad_throughput_vs_direct_batched',
    perBlock(m.vad_direct_batched!, m.vad_closed_loop!, (d, l) => d / l),
    ['vad_direct_batched_chunks_per_s'],
  );
  const mains = await engine.call<number[][]>('vad_main_thread_us');
  if (mains.every((b) => b.length > 0)) ctx.report.add('vad_main_thread_us_per_chunk', mains.map(median));
}
