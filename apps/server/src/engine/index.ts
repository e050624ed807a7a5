// The engine: run graphs with Triton's semantics on onnxruntime-node, off the main thread.
export { Engine } from './Engine.ts';
export type {
  EngineOptions,
  RunRequest,
  RunResult,
  EngineHealth,
  SequenceInfo,
  EngineMetrics,
  GraphMetrics,
  ModelMetrics,
} from './types.ts';
export { EngineError, type EngineErrorCode } from './errors.ts';
export { RunCancel, type CancelSignal } from './cancel.ts';
export { summarizeTensor, toWire } from './tensors.ts';
