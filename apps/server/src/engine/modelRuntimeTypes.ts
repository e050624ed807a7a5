import type { CustomMetrics } from './customMetrics.ts';
import type { ModelConfig, Tensor } from '@ensemble-studio/core';
import type { BackendCall } from './backends/modelBackend.ts';
import type { ComputeStamps } from './computeStamps.ts';
import type { ChainStep, HostNext, StageResult } from './backends/onnx/workerProtocol.ts';
import type { BlsCall, BlsHandler, BlsSink, LogLevel } from './backends/python/pythonTypes.ts';
import type { CancelSignal } from './cancel.ts';
import type { SequenceFlags } from './sequenceTensors.ts';
import type { SequenceEndReason } from './sequenceTypes.ts';
import type { Repository } from '../repo/types.ts';
import type { ResponseCache } from './responseCache.ts';
import type { EngineHealth, EngineOptions, TensorLimits } from './types.ts';

/** How a model runtime is made: its config, file, backend and what it tells its owner. */
export interface ModelRuntimeOptions {
  name: string;
  config: ModelConfig;
  /** The model file: model.onnx, or model.py for the Python backend. */
  path: string;
  backend: 'onnx' | 'python';
  /** Python backend: the interpreter, BLS calls, and the server log of every line a model writes. */
  python?: {
    interpreter: string;
    bls: BlsHandler;
    /** The server's custom metrics (`pb_utils.MetricFamily`). */
    metrics?: CustomMetrics;
    version: number;
    log?: (instance: string, level: LogLevel, message: string) => void;
  };
  /** The server's tensor limits, held to by every output the model sends (and a Python model's BLS inputs). */
  limits?: TensorLimits;
  /** The repository (ops fused into this model's requests read their files from it). */
  repoDir: string;
  intraOpThreads: number;
  gpu: 'auto' | 'off';
  onBound?: (id: number | string, instance: string) => void;
  onEnded?: (id: number | string, reason: SequenceEndReason) => void;
  /** New sequences that may wait for a slot at once (SequenceBatcher's `maxBacklog`); unlimited when absent. */
  maxSequenceBacklog?: number;
  /** The server's response cache (used when the config enables it) and the version served, which its keys name. */
  responseCache?: { cache: ResponseCache; version: number };
}

/** One request to a model. */
export interface InferRequest {
  inputs: Record<string, Tensor>;
  signal?: CancelSignal;
  sequence?: SequenceFlags;
  /** Asked once per input as it is handed over: true when the caller is the last holder of `t`, so its buffer may move to the worker. */
  canTransfer?: (t: Tensor) => boolean;
  /** Called when this request binds a new sequence to an instance. */
  onBound?: (instance: string) => void;
  /** Summarise the outputs in the worker (for a run someone watches; costs ~1 ms on large outputs). */
  summarize?: boolean;
  /** A decoupled model's responses, each as it arrives (else they come back in `InferResult.responses`). */
  respond?: (outputs: Record<string, Tensor>, final: boolean) => void;
  /** Lines the model logs while it runs this request. */
  onLog?: BackendCall['onLog'];
  /** The request's queue timeout (µs), for a queue policy with `allow_timeout_override`. */
  queueTimeoutUs?: number;
  /** The request's priority (Triton's `priority` parameter), for a dynamic batcher with `priority_levels`. */
  priority?: number;
}

/** A fused group (fusion.ts) to run on one instance; `modelStep` is the index of the session's step. */
export interface ChainRequest {
  feeds: Record<string, Tensor>;
  steps: ChainStep[];
  modelStep: number;
  signal?: CancelSignal;
  canTransfer?: (t: Tensor) => boolean;
  summarize?: boolean;
  /** Have the worker wake the main thread when the session returns, ahead of the steps after it (Placer.wakeAhead). */
  wakeAhead?: boolean;
  /** The instance it runs on (hostAhead.ts: the one a hosted request occupies, or its host). */
  pin?: number;
  /** The request that reads its outputs, run by its worker once it has replied (hostAhead.ts). */
  next?: HostNext;
  /** Registered only, under `id`: the worker of the request before it runs it (hostAhead.ts). */
  viaHost?: { id: number };
}

/** A fused group's outputs, each step's result, and where it ran. */
export interface ChainResult {
  outputs: Record<string, Tensor>;
  stages: StageResult[];
  queueMs: number;
  instance: string;
  /** When an instance took the group (monotonic ns). */
  startNs?: number;
  /** From the worker's post of its reply to this thread's receipt (the hop `wakeAhead` shortens), ms. */
  replyMs: number;
  /** When the worker took the request from its port (monotonic ns; what `spinAhead` brings forward). */
  arrivedNs?: number;
  /** Whether the worker was polling for the request when it was posted (`ModelRuntime.spinAhead`). */
  spun: boolean;
  /** With `next`: its worker runs that request now. */
  hosted: boolean;
}

/** A model request's outputs (a decoupled model's responses too) and where and how long it ran. */
export interface InferResult extends ComputeStamps {
  outputs: Record<string, Tensor>;
  responses?: Record<string, Tensor>[];
  queueMs: number;
  computeMs: number;
  batchSize: number;
  instance: string;
  /** A request sent straight to a worker thread: when the worker took it (monotonic ns), and whether it was polling. */
  arrivedNs?: number;
  spun?: boolean;
}

/** A sequence a model ended, and why. */
export interface SequenceEnded {
  model: string;
  sequenceId: number | string;
  reason: SequenceEndReason;
  /** The model's max_sequence_idle_microseconds (what `reason: 'idle'` waited). */
  idleMicroseconds: number;
}

/** What the runtimes need from the engine that owns them. */
export interface RuntimeDeps {
  opts: EngineOptions;
  /** The repository served now (a reload brings a re-read one). */
  repository(): Repository;
  /** A restarted model's new runtime took over from its old one: graphs prepared with the old must be prepared anew. */
  onReplaced(): void;
  /** Answers a Python model's BLS call. */
  bls(call: BlsCall, sink: BlsSink): void;
  /** The server's custom metrics, which Python models report into. */
  metrics: CustomMetrics;
  /** Hears every sequence a model ends. */
  onSequenceEnded(ended: SequenceEnded): void;
  /** The server's response cache (`EngineOptions.responseCache`), when it has one. */
  responseCache?: ResponseCache;
}

/** The models' part of `Engine.health()`. */
export interface RuntimesHealth {
  models: EngineHealth['models'];
  /** The execution provider of each ready model. */
  inUse: Record<string, string>;
  notices: string[];
  /** Execution providers bundled with onnxruntime that no model failed on. */
  available: string[];
}

/**
 * How a model's restart ended: loaded (or dropped: gone from the repository), aborted (`abort`, `close`), or failed,
 * `kept` when its old runtime goes on serving.
 */
export type RestartOutcome =
  { type: 'loaded' } | { type: 'aborted' } | { type: 'failed'; error: string; kept: boolean };
