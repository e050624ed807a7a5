// The hardware's ceiling for the fan-out bench: two bare worker threads, each with its own onnxruntime
// session of the same model, fed by transfer — no engine, no scheduler. What they gain running together
// over one after the other is the most any engine can gain from two branches on this machine.
import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';
import type { Tensor } from '@ensemble-studio/core';

const WORKER = `
const { parentPort, workerData } = require('node:worker_threads');
const ort = require(workerData.ort);
ort.InferenceSession.create(workerData.path, { intraOpNumThreads: 1, interOpNumThreads: 1 }).then((s) => {
  parentPort.on('message', async (feeds) => {
    const out = await s.run(Object.fromEntries(Object.entries(feeds).map(([k, t]) => [k, new ort.Tensor('float32', t.data, t.shape)])));
    parentPort.postMessage(Object.keys(out).length);
  });
  parentPort.postMessage('ready');
});`;

export interface RawPair {
  sequential(): Promise<void>;
  parallel(): Promise<void>;
  close(): Promise<void>;
}

/** Two workers on `modelPath`, each call sending its own copy of `feeds` (FP32). */
export async function rawWorkerPair(modelPath: string, feeds: Record<string, Tensor>): Promise<RawPair> {
  const ortPath = createRequire(import.meta.url).resolve('onnxruntime-node');
  const workers = [0, 1].map(() => new Worker(WORKER, { eval: true, workerData: { path: modelPath, ort: ortPath } }));
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
