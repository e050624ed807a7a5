import type { Tensor } from '@ensemble-studio/core';
import type { CancelSignal } from '../cancel.ts';
import type { InstancePool } from '../InstancePool.ts';
import type { SequenceFlags } from '../sequenceTensors.ts';
import type { LogLevel } from './python/pythonTypes.ts';
import type { ComputeStamps } from '../computeStamps.ts';

// How a model runtime (pool, dynamic batcher, sequence batcher) hands one execution to its backend.

/** One request as the runtime hands it to the backend. */
export interface BackendCall {
  inputs: Record<string, Tensor>;
  /** Pinned instance (sequence batching), or undefined for any idle instance. */
  pin?: number;
  signal?: CancelSignal;
  /** Asked once per input as it is handed over (moved or copied): whether `t`'s buffer may move to the instance. */
  canTransfer?: (t: Tensor) => boolean;
  /** Summarise the outputs where they are made (a watched run). */
  summarize?: boolean;
  /** The sequence this request belongs to (its correlation id and START/END flags). */
  sequence?: SequenceFlags;
  /** A decoupled model's responses, each as it arrives. */
  respond?: (outputs: Record<string, Tensor>, final: boolean) => void;
  /** Model requests this call carries: a concatenated batch's count (default 1), for the pending-request gauge. */
  requests?: number;
  /** Lines the model logs while it runs this request. */
  onLog?: (level: LogLevel, message: string, instance: string) => void;
}

/** What one request came to: its (last) outputs, and for a decoupled model every response not streamed. */
export interface BackendReply extends ComputeStamps {
  outputs: Record<string, Tensor>;
  /** All responses, when the model is decoupled and no `respond` sink took them. */
  responses?: Record<string, Tensor>[];
  instance: string;
  queueNs: number;
  computeNs: number;
  /** A worker's request: when the worker took it from its port (monotonic ns), and whether it was polling for it. */
  arrivedNs?: number;
  spun?: boolean;
}

/**
 * A backend's side of a model runtime. ONNX concatenates a dynamic batch into one session run; Python
 * hands `execute` the list of requests (Triton's python backend never concatenates).
 */
export interface ModelBackend {
  // The pool's request and result types are the backend's own; the runtime only starts, sizes, crashes and closes it.
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  readonly pool: InstancePool<any, any>;
  /** True when a dynamic batch is concatenated along dim 0 into one execution. */
  readonly concatenates: boolean;
  /** True when an op may run in the same request as the model (fusion). */
  readonly fusable: boolean;
  /** Runs one request. */
  call(c: BackendCall): Promise<BackendReply>;
  /** Runs a dynamic batch as one execution of several requests (only when `concatenates` is false). */
  callMany(cs: BackendCall[]): Promise<(BackendReply | Error)[]>;
  /** Notices about the model's set-up (e.g. settings the studio cannot honour locally). */
  readonly notices: string[];
}
