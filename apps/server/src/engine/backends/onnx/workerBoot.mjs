// Entry of every engine worker thread. Node 20 workers cannot take `--import tsx` reliably, so this
// plain-JS file registers tsx's loader in the worker and then imports the TypeScript entry named in
// workerData. It works the same under tsx (server, bench, CLI) and vitest.
import { workerData } from 'node:worker_threads';
import { register } from 'tsx/esm/api';

register();
await import(workerData.entry);
