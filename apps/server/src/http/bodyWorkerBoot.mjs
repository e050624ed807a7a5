// Entry of the body-parsing worker thread: registers tsx's loader in the worker (workers cannot take
// `--import tsx` reliably), then imports the TypeScript entry named in workerData.
import { workerData } from 'node:worker_threads';
import { register } from 'tsx/esm/api';

register();
await import(workerData.entry);
