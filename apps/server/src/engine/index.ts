// The engine: run graphs with Triton's semantics on onnxruntime-node, off the main thread.
export { Engine } from './Engine.ts';
export { servingLoadConcurrency } from './eachAtMost.ts';
export type { RunRequest } from './types.ts';
export { RunCancel } from './cancel.ts';
