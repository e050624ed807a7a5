import type { ComputeStamps } from '../../computeStamps.ts';
import type { Tensor } from '@ensemble-studio/core';
import type { CancelSignal } from '../../cancel.ts';

// What the Python backend's instances take and give (PROTOCOL.md has the wire form).

export type LogLevel = 'info' | 'warn' | 'error' | 'verbose';

/** One `pb_utils.InferenceRequest` handed to `execute`. */
export interface PyRequest {
  inputs: Record<string, Tensor>;
  requestedOutputs?: string[];
  /** The sequence's correlation id (0 when the request is not part of a sequence). */
  correlationId?: number | string;
  /** TRITONSERVER_REQUEST_FLAG_SEQUENCE_START (1) | _END (2). */
  flags?: number;
  requestId?: string;
  parameters?: Record<string, unknown>;
  /** Each response as it arrives (a decoupled model may send any number); `final` ends the request. */
  /** Each response as it comes; `final` when the model sent it with the FINAL flag (nothing follows). */
  onResponse?: (outputs: Record<string, Tensor>, final: boolean) => void;
  /** Lines the model writes while it executes this request (print, stderr, Logger). */
  onLog?: (level: LogLevel, message: string, instance: string) => void;
}

/** One `execute` call: the requests arrive in one list (never concatenated, as Triton's python backend). */
export interface PyExecute {
  requests: PyRequest[];
  signal?: CancelSignal;
}

/** Per request: its responses (those not streamed through `onResponse`), or why it failed. */
export type PyRequestResult =
  { ok: true; responses: Record<string, Tensor>[]; streamed: number } | { ok: false; error: Error };

/** An execute's results; `inferStartNs`/`inferEndNs`: when the model's `execute` began and returned, from the stub. */
export interface PyExecuteResult extends Pick<ComputeStamps, 'inferStartNs' | 'inferEndNs'> {
  results: PyRequestResult[];
  computeNs: number;
}

/** A BLS call from a model's `execute`: `InferenceRequest(...).exec()` / `async_exec()`. */
export interface BlsCall {
  model: string;
  version: number;
  inputs: Record<string, Tensor>;
  requestedOutputs: string[];
  /** The request's `request_id` ('' when it set none). */
  requestId: string;
  correlationId: number | string;
  flags: number;
  timeoutUs: number;
  parameters: Record<string, unknown>;
  decoupled: boolean;
  /** The model (and instance) that made the call. */
  caller: { model: string; instance: string };
  /** Aborts when the model cancels the call (`bls_cancel`) or its process goes away. */
  signal: AbortSignal;
}

/** Where a BLS call's responses go: each response, then `end` once (with an error when the call failed). */
export interface BlsSink {
  response(outputs: Record<string, Tensor>): void;
  end(error?: string): void;
}

/** Answers BLS calls (the engine: any model or graph of the repository). */
export type BlsHandler = (call: BlsCall, sink: BlsSink) => void;
