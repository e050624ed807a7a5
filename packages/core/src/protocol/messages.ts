import type { DataType } from '../tensor/dtype.ts';
import type { WireTensor } from './messageSchema.ts';

// What a client sends is checked by schemas; its types are theirs.
export type { ClientMessage, WireTensor } from './messageSchema.ts';
export { MAX_ID_LENGTH } from './messageSchema.ts';

/** WebSocket protocol version; bump on any incompatible change. */
export const PROTOCOL_VERSION = 1;

/** A small description of a tensor for the UI: stats and a preview of the first elements. */
export interface TensorSummary {
  datatype: DataType;
  shape: number[];
  min?: number;
  max?: number;
  mean?: number;
  preview: (number | string | boolean)[];
  /** Full data when the tensor is small enough for the browser to draw it (≤ 512 numbers: boxes, scores; ≤ 4096 strings: texts). */
  data?: (number | string | boolean)[];
  /** A downsampled picture (≤ 64×64, box-averaged) of a larger FP32 [H,W] tensor, or of the first channel of an [N,C,H,W] one. */
  thumbnail?: { shape: [number, number]; data: number[] };
}

export type SkipReason =
  | { type: 'exit'; conditionId: string; expression: string; value: number | boolean }
  | { type: 'upstream-failed'; nodeId: string; message: string }
  | { type: 'cancelled'; message: string };

export interface NodeTiming {
  nodeId: string;
  queueMs: number;
  computeMs: number;
  startMs: number;
  endMs: number;
  batchSize?: number;
  instance?: string;
  /** Where an op node ran: 'inline' (the server's main thread), 'op-worker', or 'fused:<model node id>' (that model's worker). */
  placement?: string;
  /** A model node's fused request: whether its worker woke the server's main thread ahead of its reply (the server measures both ways and keeps the quicker). */
  wokeAhead?: boolean;
  /** A model node's first fused request of a run that had the server to itself: whether its worker was polling for it rather than asleep (the server measures both ways and keeps the quicker). */
  spunAhead?: boolean;
  /** A model node's fused request on the critical branch of a run that had the server to itself: whether the worker of the model before it ran it, on its own copy of this model, rather than this model's own worker after a hop through the server's main thread (the server measures both ways and keeps the quicker). */
  hosted?: boolean;
  /** A model node's request: when an instance took it, and when the model itself began and ended (ONNX's session run, Python's `execute`), in ms from the run's start. */
  computeStartMs?: number;
  inferStartMs?: number;
  inferEndMs?: number;
}

/** Server → client. Every run-scoped message carries `runId`; stream messages carry `streamId`. */
export type ServerMessage =
  | { type: 'hello'; protocol: number; server: string; executionProviders: string[] }
  | { type: 'run.started'; runId: string; requestId?: string; streamId?: string; graph: string; nodes: string[] }
  | { type: 'node.started'; runId: string; nodeId: string; atMs: number; instance?: string; batchSize?: number }
  | { type: 'node.finished'; runId: string; nodeId: string; timing: NodeTiming; outputs: Record<string, TensorSummary> }
  | { type: 'node.skipped'; runId: string; nodeId: string; reason: SkipReason }
  | { type: 'node.failed'; runId: string; nodeId: string; message: string; traceback?: string }
  /** A line a model wrote (`print`, stderr, `pb_utils.Logger`) while this run used it; `nodeId` is absent when it cannot be told which node asked. */
  | {
      type: 'run.log';
      runId: string;
      nodeId?: string;
      model: string;
      instance: string;
      level: 'info' | 'warn' | 'error' | 'verbose';
      message: string;
    }
  | {
      type: 'run.partial';
      runId: string;
      nodeId: string;
      index: number;
      outputs: Record<string, TensorSummary>;
      chunk?: number;
    }
  | {
      type: 'run.exited_early';
      runId: string;
      conditionId: string;
      expression: string;
      value: number | boolean;
      strategy: 'gate' | 'bls' | 'error';
      message?: string;
      outputs: Record<string, WireTensor>;
    }
  | {
      type: 'run.completed';
      runId: string;
      outputs: Record<string, WireTensor>;
      timings: NodeTiming[];
      totalMs: number;
    }
  | { type: 'run.failed'; runId: string; error: { code: string; message: string; nodeId?: string } }
  | {
      type: 'sequence.bound';
      streamId: string;
      sequenceId: number | string;
      model: string;
      instance: string;
      nodeId: string;
    }
  | { type: 'sequence.chunk'; streamId: string; chunk: number; runId: string }
  | {
      type: 'sequence.ended';
      streamId: string;
      sequenceId: number | string;
      reason: 'end' | 'cancelled' | 'idle' | 'failed';
      message?: string;
    }
  | { type: 'notice'; level: 'info' | 'warning'; message: string }
  | { type: 'backpressure'; dropped: number; policy: string }
  | { type: 'error'; ref?: string; error: { code: string; message: string } }
  | { type: 'pong'; at: number };
