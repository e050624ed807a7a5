// The hardware's ceiling for the fan-out bench: two bare worker threads, each with its own onnxruntime
// session of the same model, fed by transfer — no engine, no scheduler. Each does what the engine's model
// workers must do and nothing more: run the session at the same thread priority and hand its outputs to the
// main thread by transfer. What they gain running together over one after the other is the most any engine
// can gain from two branches on this machine.
import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';
import type { Tensor } from '@ensemble-studio/core';

const WORKER = `
const { parentPort, workerData } = require('node:worker_threads');
const { readlinkSync } = require('node:fs');
const { setPriority } = require('node:os');
if (workerData.nice !== 0) {
  try { setPriority(Number(readlinkSync('/proc/thread-self').split('/').pop()), workerData.nice); } catch {}
}
const ort = require(workerData.ort);
ort.InferenceSession.create(workerData.path, { intraOpNumThreads: 1, interOpNumThreads: 1 }).then((s) => {
  parentPort.on('message', async (feeds) => {
    const out = await s.run(Object.fromEntries(Object.entries(feeds).map(([k, t]) => [k, new ort.Tensor('float32', t.data, t.shape)])));
    const back = Object.fromEntries(Object.entries(out).map(([k, t]) => [k, { shape: t.dims, data: t.data }]));
    parentPort.postMessage(back, Object.values(back).map((t) => t.data.buffer));
  });
  parentPort.postMessage('ready');
});`;

export interface RawPair {
  sequential(): Promise<void>;
  parallel(): Promise<void>;
  close(): Promise<void>;
}

/**
 * Two workers on `modelPath` at thread nice value `nice` (the engine's `workerNice` for the model), each call
 * sending its own copy of `feeds` (FP32) and receiving the outputs.
 */
export async function rawWorkerPair(modelPath: string, feeds: Record<string, Tensor>, nice: number): Promise<RawPair> {
  const ortPath = createRequire(import.meta.url).resolve('onnxruntime-node');
  const workers = [0, 1].map(
    () => new Worker(WORKER, { eval: true, workerData: { path: modelPath, ort: ortPath, nice } }),
  );
  await Promise.all(
    workers.map(
      (w) =>
        new Promise((resolve, reject) => {
          w.once('message', resolve);
          w.once('error', reject);
        }),
    ),
  );
  const call = (w: Worker) =>
    new Promise<void>((resolve) => {
      w.once('message', () => resolve());
      const copies = Object.fromEntries(
        Object.entries(feeds).map(([k, t]) => [k, { shape: t.shape, data: (t.data as Float32Array).slice() }]),
      );
      w.postMessage(
        copies,
        Object.values(copies).map((c) => c.data.buffer),
      );
    });
  return {
    sequential: async () => {
      await call(workers[0]!);
      await call(workers[0]!);
    },
    parallel: async () => {
      await Promise.all(workers.map(call));
    },
    close: async () => {
      await Promise.all(workers.map((w) => w.terminate()));
    },
  };
}
