import type { DataType, TensorData, TensorSummary } from '@ensemble-studio/core';
import type { TensorLimits } from '../../types.ts';

/** A tensor crossing the thread boundary; numeric data travels in the transfer list. */
export interface PortableTensor {
  datatype: DataType;
  shape: number[];
  data: TensorData;
}

/** What a worker hosts: one onnxruntime session (a model instance) or the built-in ops. */
export type LoadSpec =
  | {
      kind: 'model';
      model: string;
      path: string;
      /** Execution providers to try in order; the first that works is used. */
      providers: string[];
      intraOpThreads: number;
      /** Thread nice value (see `workerNice`). */
      nice: number;
      /** Feeds for the warm-up run (empty = none). */
      warmup: Record<string, PortableTensor>[];
      /** The repository, for ops fused into this model's requests (their dictionaries). */
      repoDir: string;
      /** The server's tensor limits, held to by each output of the session (none when absent). */
      limits?: TensorLimits;
    }
  | { kind: 'ops'; repoDir: string };

/** Where a fused step's input comes from: a tensor sent with the request, or an output of an earlier step. */
export type StepSource = { feed: string } | { step: number; port: string };

/**
 * One node of a fused group (see fusion.ts), run in the model's worker: built-in ops, the session itself,
 * and a condition (when it holds, the chain stops there: an early exit). `exports`: ports of a step
 * before the last whose tensors also go back to the main thread (the last step's all do).
 */
export type ChainStep = (
  | { kind: 'op'; op: string; values: Record<string, number | string | boolean> }
  | { kind: 'model' }
  | { kind: 'condition'; id: string; expression: string }
) & { inputs: Record<string, StepSource>; exports?: string[] };

/**
 * The request that reads a chain's last outputs next, run by this same worker on its copy of the reader's model
 * (`guest`, loaded with a `guest` message) once the chain has run to its end and its reply is posted (hostAhead.ts).
 * `feeds`: the reader's feed name ← this chain's output port. The reply to it comes from this worker under
 * `request.id`, which the main thread registered for the reader's instance without sending anything (`viaHost`).
 */
export interface HostNext {
  guest: string;
  feeds: Record<string, string>;
  request: Extract<ToWorker, { type: 'chain' }>;
}

/** What each step of a chain took, and its outputs summarised when the run is watched. */
export interface StageResult {
  computeNs: number;
  /** When the step began (monotonic ns, the process's clock). */
  startNs?: number;
  summaries: Record<string, TensorSummary>;
  batchSize?: number;
  /** A condition that held: the chain stopped after this step. */
  exit?: number | boolean;
  /** The step's `exports`. */
  outputs?: Record<string, PortableTensor>;
}

/** Main → worker. */
export type ToWorker =
  | { type: 'load'; spec: LoadSpec }
  /** `summarize`: also send stats/thumbnails of the outputs (only runs someone watches need them). */
  | { type: 'run'; id: number; feeds: Record<string, PortableTensor>; summarize: boolean }
  | {
      type: 'op';
      id: number;
      op: string;
      inputs: Record<string, PortableTensor>;
      values: Record<string, number | string | boolean>;
      summarize: boolean;
    }
  /**
   * A fused group: the steps in order; the result carries the last step's outputs and every step's timing.
   * `wakeAhead`: post `soon` when the session returns and steps remain (Placer.wakeAhead).
   */
  | {
      type: 'chain';
      id: number;
      feeds: Record<string, PortableTensor>;
      /** The steps; left out where this worker was sent them before under `stepsId` (chainStepsWire.ts). */
      steps?: ChainStep[];
      /** The id the steps are kept under in this worker, from when they were sent. */
      stepsId?: number;
      /** Ids of steps this worker no longer needs to keep ('all': every one), forgotten before these are read. */
      forgetSteps?: number[] | 'all';
      summarize: boolean;
      wakeAhead?: true;
      /** Once it has run to its end and replied, this worker runs the request that reads its outputs (hostAhead.ts). */
      next?: HostNext;
      /**
       * Never sent: a request that another instance's worker runs (`HostNext.request`), under `id` (kept for it by
       * `host`); the main thread only registers it.
       */
      viaHost?: { id: number };
    }
  /** Loads a copy of another model (`spec`) beside this worker's own, under `key`, for the requests it hosts (`HostNext`). */
  | { type: 'guest'; key: string; spec: Extract<LoadSpec, { kind: 'model' }> }
  /** Releases the copy loaded under `key` once the runs on it are done: its model is gone. */
  | { type: 'drop-guest'; key: string }
  /**
   * A request follows within `ns`: poll the port until it comes (at most `ns`) instead of sleeping, so that it is
   * taken with no wake-up of this thread's CPU (Placer.spinAhead).
   */
  | { type: 'spin'; ns: number }
  /** Fault injection for tests and operators: the worker exits abruptly, like a native crash. */
  | { type: 'crash' }
  /** Leave now: the thread is between two of its own calls (WorkerInstance.close). */
  | { type: 'stop' };

/** Worker → main. */
export type FromWorker =
  | {
      type: 'loaded';
      provider: string;
      inputNames: string[];
      outputNames: string[];
      /** Providers that were tried and failed, with onnxruntime's reason. */
      failures: string[];
      loadMs: number;
      warmupMs?: number;
      warmupError?: string;
    }
  | { type: 'load-failed'; message: string }
  /** `summaries`: each output summarised in the worker (stats, preview, thumbnail) so the main thread doesn't; empty unless asked. */
  | {
      type: 'result';
      id: number;
      outputs: Record<string, PortableTensor>;
      computeNs: number;
      /** When the session run began (monotonic ns, the process's clock): a plain run's only. */
      inferStartNs?: number;
      summaries: Record<string, TensorSummary>;
      stages?: StageResult[];
      /** A chain's: when the worker posted this reply (monotonic ns); the main thread's receipt less it is the reply's hop. */
      sentNs?: number;
      /** A session run's or a chain's: when the worker took the request from its port (monotonic ns). */
      arrivedNs?: number;
      /** Set by the main thread as the reply arrives (WorkerInstance), not sent. */
      receivedNs?: number;
      /** Set by the main thread with `arrivedNs`: whether the worker was polling for the request when it was posted. */
      spun?: boolean;
      /** A chain's with `next`: this worker runs that request now, after this reply. */
      hosted?: true;
    }
  /** `stage`: the chain step that failed, and `stages` what the steps before it took. */
  | { type: 'error'; id: number; message: string; stage?: number; stages?: StageResult[] }
  /** A chain's session returned and its reply follows within its last steps' time: wakes the main thread (Placer.wakeAhead). */
  | { type: 'soon' }
  /** A `guest` model loaded (or not: `message`), under its key. */
  | { type: 'guest-loaded'; key: string; message?: string };
