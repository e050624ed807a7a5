// Entry of a worker thread when its TypeScript entry could not be bundled (workerScript.ts): registers tsx's loader in
// the worker (Node 20 workers cannot take `--import tsx` reliably), then imports the entry named in workerData.
import { workerData } from 'node:worker_threads';
import { register } from 'tsx/esm/api';

register();
await import(workerData.entry);
