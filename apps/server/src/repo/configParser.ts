import type { Worker } from 'node:worker_threads';
import { parsePbtxtLenient } from '@ensemble-studio/core';
import { startWorker } from '../workerScript.ts';

type PbtxtResult = ReturnType<typeof parsePbtxtLenient>;

// A config.pbtxt is parsed during repository reads, which run on the thread that answers every client: a 1 MiB
// config of half a million dims held them ~214 ms (the twelfth round). Configs over WORKER_CONFIG_BYTES are parsed
// in a worker thread of their own; real configs are a few KiB and stay here (a worker hop costs more than they do).
// The result crosses back by structured clone, which keeps what the parser makes: plain objects and arrays (own
// `__proto__` keys included), strings, numbers, bigints and booleans.

/** Configs up to this size are parsed on the calling thread. */
export const WORKER_CONFIG_BYTES = 64 * 1024;

const ENTRY = new URL('./configParserWorker.ts', import.meta.url);

let worker: Promise<Worker | undefined> | undefined;
let nextId = 1;
const pending = new Map<number, { bytes: Buffer; resolve: (r: PbtxtResult) => void }>();

/**
 * The worker, started on first use; it keeps the process alive only while it has configs to parse. Undefined when it
 * could not be started: its callers parse here, and the next large config tries again.
 */
function configWorker(): Promise<Worker | undefined> {
  if (worker) return worker;
  const started: Promise<Worker | undefined> = startWorker(ENTRY).then(
    (w) => watch(w, started),
    (error: unknown) => {
      if (worker === started) worker = undefined;
      console.warn(`config parser worker could not start (${String(error)}); parsing on the main thread`);
      return undefined;
    },
  );
  worker = started;
  return started;
}

/**
 * Resolves each parsed config; a worker that fails leaves its configs to be parsed here, as small ones are
 * (`started` is its promise, the current worker's while it is `worker`).
 */
function watch(w: Worker, started: Promise<Worker | undefined>): Worker {
  w.unref();
  w.on('message', ({ id, result }: { id: number; result: PbtxtResult }) => {
    const p = pending.get(id);
    pending.delete(id);
    if (pending.size === 0) w.unref();
    p?.resolve(result);
  });
  const fail = () => {
    if (worker === started) worker = undefined;
    const left = [...pending.values()];
    pending.clear();
    for (const p of left) p.resolve(parsePbtxtLenient(p.bytes.toString('utf8')));
  };
  w.on('error', fail);
  w.on('exit', fail);
  return w;
}

/**
 * A config.pbtxt's bytes parsed leniently (`parsePbtxtLenient`), in the config worker when they are over
 * WORKER_CONFIG_BYTES; the same result either way.
 * @example const parsed = await parseConfigBytes(await readFile(join(dir, 'config.pbtxt')))
 */
export function parseConfigBytes(bytes: Buffer): Promise<PbtxtResult> {
  if (bytes.byteLength <= WORKER_CONFIG_BYTES) return Promise.resolve(parsePbtxtLenient(bytes.toString('utf8')));
  const started = configWorker();
  const id = nextId++;
  return new Promise((resolve) => {
    pending.set(id, { bytes, resolve });
    void started.then((w) => {
      if (w) {
        w.ref();
        w.postMessage({ id, bytes });
      } else if (pending.delete(id)) {
        resolve(parsePbtxtLenient(bytes.toString('utf8')));
      }
    });
  });
}
