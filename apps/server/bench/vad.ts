// The VAD stream measurements of the bench: real-time streams (chunk latency) and a closed loop
// (throughput, and the main thread's CPU per chunk: what the engine costs the event loop).
import { readFileSync } from 'node:fs';
import * as ort from 'onnxruntime-node';
import type { Tensor } from '@ensemble-studio/core';
import type { Engine } from '../src/engine/index.ts';
import { vadGraph } from '../src/testing/engineGraphs.ts';
import { mulberry32 } from '../src/onnx/synthetic.ts';

const now = () => performance.now();
const sleep = (ms: number) => new Promise((r) => setTimeout(r, Math.max(0, ms)));
const percentile = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(s.length * p))]!;
};
const median = (xs: number[]) => percentile(xs, 0.5);

/** Each stream's audio exists before it plays (a recording, a microphone buffer): generating it in the timed loop would cost the very thread being measured. */
function streamAudio(streams: number, chunks: number): Float32Array[] {
  return Array.from({ length: streams }, (_, s) => {
    const r = mulberry32(s + 1);
    return Float32Array.from({ length: 576 * chunks }, () => (r() - 0.5) * 0.2);
  });
}

async function sendChunk(engine: Engine, audio: Float32Array, k: number, chunks: number, id: string): Promise<void> {
  const chunk: Tensor = { datatype: 'FP32', shape: [576], data: audio.subarray(576 * k, 576 * (k + 1)) };
  const r = await engine.run({
    graph: VAD,
    inputs: { audio: chunk },
    sequence: { id, start: k === 0, end: k === chunks - 1 },
  });
  if (r.status !== 'completed') throw new Error(`vad: ${r.error?.code} ${r.error?.message}`);
}

const VAD = vadGraph();

/** Concurrent real-time VAD streams (a 576-sample chunk every 32 ms each): chunk latency p99 in ms. */
export async function vadLevel(engine: Engine, streams: number, chunks: number): Promise<number> {
  const lat: number[] = [];
  const period = 32;
  const audio = streamAudio(streams, chunks);
  const t0 = now() + 50;
  await Promise.all(
    audio.map(async (a, s) => {
      const offset = (s * period) / streams;
      for (let k = 0; k < chunks; k++) {
        const due = t0 + offset + k * period;
        await sleep(due - now());
        await sendChunk(engine, a, k, chunks, `rt-${streams}-${s}`);
        lat.push(now() - due);
      }
    }),
  );
  return percentile(lat, 0.99);
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

let loopRound = 0;

/**
 * `streams` streams each sending its next chunk as soon as the last one returns: chunks a second,
 * and the main thread's CPU µs per chunk (median of `trials`).
 */
export async function vadClosedLoop(
  engine: Engine,
  streams: number,
  chunks: number,
  trials: number,
): Promise<{ chunksPerS: number; mainUsPerChunk: number | undefined }> {
  const audio = streamAudio(streams, chunks);
  const rates: number[] = [];
  const mains: number[] = [];
  for (let t = 0; t < trials; t++) {
    const round = loopRound++;
    const [cpu0, t0] = [mainThreadCpuMs(), now()];
    await Promise.all(
      audio.map(async (a, s) => {
        for (let k = 0; k < chunks; k++) await sendChunk(engine, a, k, chunks, `loop-${round}-${s}`);
      }),
    );
    const [cpu1, wall] = [mainThreadCpuMs(), now() - t0];
    rates.push((streams * chunks) / (wall / 1000));
    if (cpu0 !== undefined && cpu1 !== undefined) mains.push(((cpu1 - cpu0) * 1000) / (streams * chunks));
  }
  return { chunksPerS: median(rates), mainUsPerChunk: mains.length > 0 ? median(mains) : undefined };
}

/** The VAD session called directly on a batch of 64 chunks (the most one batch holds): chunks a second. */
export async function vadDirectBatched(session: ort.InferenceSession, trials: number): Promise<number> {
  const B = 64;
  const r = mulberry32(7);
  const feeds = {
    input: new ort.Tensor(
      'float32',
      Float32Array.from({ length: B * 576 }, () => (r() - 0.5) * 0.2),
      [B, 576],
    ),
    state: new ort.Tensor('float32', new Float32Array(B * 256), [B, 2, 128]),
  };
  for (let i = 0; i < 5; i++) await session.run(feeds);
  const times: number[] = [];
  for (let i = 0; i < trials; i++) {
    const t0 = now();
    await session.run(feeds);
    times.push(now() - t0);
  }
  return B / (median(times) / 1000);
}
