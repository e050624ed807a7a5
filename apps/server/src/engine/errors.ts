import type { CancelSignal } from './cancel.ts';
import type { StageResult } from './backends/onnx/workerProtocol.ts';

/** Error codes a run can fail with (RunResult.error.code). */
export type EngineErrorCode =
  | 'invalid-input'
  | 'invalid-graph'
  | 'model-unavailable'
  | 'instance-crashed'
  | 'timeout'
  | 'cancelled'
  | 'limit'
  | 'node-failed'
  | 'early-exit'
  | 'sequence-unknown'
  | 'sequence-lost'
  | 'output-missing'
  | 'closed';

/** An error carrying a stable code; the message says what happened and what to do. */
export class EngineError extends Error {
  constructor(
    readonly code: EngineErrorCode,
    message: string,
    readonly nodeId?: string,
  ) {
    super(message);
    this.name = 'EngineError';
  }
}

/** A model's own code failed (a Python exception or error response); `traceback` names its file:line frames. */
export class ModelError extends EngineError {
  constructor(
    message: string,
    readonly traceback?: string,
  ) {
    super('node-failed', message);
  }
}

/** A fused group (fusion.ts) failed at step `stage` on `instance`; `stages` are what the steps before it took. */
export class ChainError extends EngineError {
  constructor(
    message: string,
    readonly stage: number,
    readonly stages: StageResult[],
    readonly instance: string,
  ) {
    super('node-failed', message);
  }
}

/** The error to reject with when `signal` aborted: its reason when that is an EngineError, else 'cancelled'. */
export function abortError(signal: CancelSignal): EngineError {
  const r: unknown = signal.reason;
  if (r instanceof EngineError) return r;
  return new EngineError(
    'cancelled',
    r instanceof Error && r.name !== 'AbortError' ? r.message : 'the run was cancelled',
  );
}

/**
 * While `entry` waits in the queue `queue()` returns: when `signal` aborts, takes it out and rejects it with
 * the abort error. Returns the listener, to remove once the entry leaves the queue normally. The queue is
 * looked up when the signal aborts, never captured: its owner may have replaced the array by then (the entry
 * would stay queued and run), and an array captured by a waiting entry's listener keeps every entry of it,
 * and through their listeners every earlier array, alive.
 */
export function dequeueOnAbort<T>(
  queue: () => T[],
  entry: T,
  signal: CancelSignal,
  reject: (e: EngineError) => void,
): () => void {
  return listenOnce(signal, () => {
    const q = queue();
    const at = q.indexOf(entry);
    if (at >= 0) q.splice(at, 1);
    reject(abortError(signal));
  });
}

/** Adds `onAbort` to `signal` (once) and returns it: the listener is an argument, so tsx gives it no name at run time. */
function listenOnce(signal: CancelSignal, onAbort: () => void): () => void {
  signal.addEventListener('abort', onAbort, { once: true });
  return onAbort;
}

/** Message text of any thrown value. */
export function messageOf(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

/**
 * `p`, or the abort error as soon as `signal` aborts (a request waiting in a backlog).
 * @example return untilAborted(step, signal)
 */
export function untilAborted<T>(p: Promise<T>, signal: CancelSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(abortError(signal));
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(abortError(signal));
    signal.addEventListener('abort', onAbort, { once: true });
    p.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}
