import type {
  ApiEngineHealth,
  ConditionStrategy,
  GraphDoc,
  NodeTiming,
  ServerMessage,
  Tensor,
} from '@ensemble-studio/core';
import type { Repository } from '../repo/types.ts';
import type { CancelSignal } from './cancel.ts';

export type { GraphMetrics, ModelMetrics } from './Metrics.ts';

/** The limits (by the names the server's `Limits` gives them) that a tensor a model sends is held to. */
export interface TensorLimits {
  /** Elements of one tensor. */
  maxTensorElements: number;
  /** Bytes of one tensor (no request body can bring a larger one). */
  maxBodyBytes: number;
}

export interface EngineOptions {
  repository: Repository;
  /** onnxruntime intra-op threads per instance (default 1); spinning is turned off above 1. */
  intraOpThreads?: number;
  /** Runs accepted at once; more fail with code 'limit' (default 64). */
  maxConcurrentRuns?: number;
  /** Per-run time limit when a request sets none (default 60 000 ms; 0 = none). */
  defaultTimeoutMs?: number;
  /** 'auto': KIND_GPU instances try CUDA then WebGPU before CPU; 'off': CPU only (with a notice). */
  gpu?: 'auto' | 'off';
  /** Load models when first used instead of in `create` (default false: load and warm every model up front). */
  lazy?: boolean;
  /**
   * Models `create` loads at once (default: all). A server that is already answering clients creates its next
   * engine with `servingLoadConcurrency()`: a dozen threads booting together leave its event loop a sliver of a core.
   */
  loadConcurrency?: number;
  /** Op worker threads for large-tensor ops (default 2). */
  opWorkers?: number;
  /**
   * Run an op that only feeds a model, or only reads its outputs, in that model's worker, in the same
   * request (fusion.ts; default true). Saves a thread round trip per op; node events and timings stay per node.
   */
  fuseOps?: boolean;
  /**
   * The server's tensor limits, held to by what every model sends: an ONNX model's outputs (checked in its worker
   * thread, so one over them never reaches the main thread) and a Python model's outputs and BLS calls' inputs (the
   * stub refuses a tensor over them before it crosses the pipe). No limit when absent.
   */
  tensorLimits?: TensorLimits;
  /** The python3 that runs Python-backend models (default: STUDIO_PYTHON, else `python3` on PATH). */
  python?: string;
  /** The server log of every line a Python model writes (print, stderr, pb_utils.Logger). */
  onModelLog?: (model: string, instance: string, level: string, message: string) => void;
  /**
   * Triton's response cache (`--cache-config local,size=N`): one cache of at most `sizeBytes` of outputs, shared by
   * the models whose config says `response_cache { enable: true }`. No cache when absent (their configs are then
   * served uncached, as Triton does).
   */
  responseCache?: { sizeBytes: number };
}

export interface RunRequest {
  /** Not changed after it is passed in: the engine remembers its index and fusion plan per document (rebuilt when its node or edge list is replaced). */
  graph: GraphDoc;
  inputs: Record<string, Tensor>;
  /**
   * Triton's top-level response cache of an ensemble whose config enables it: the run is answered from the engine's
   * cache (`EngineOptions.responseCache`) when its inputs were answered before, and its outputs kept when it
   * completes. Not for a decoupled or stateful graph (Triton refuses the cache for them).
   */
  cache?: boolean;
  runId?: string;
  /** The id of the request the run serves (KServe's `id`), named by Triton's messages about its steps. */
  requestId?: string;
  /** Cancels the run: an AbortSignal, or a RunCancel (lighter, for a stream's ~31 runs a second). */
  signal?: CancelSignal;
  timeoutMs?: number;
  /**
   * The request's own queue timeout (KServe's `timeout` parameter, µs): each of its model requests waits at most this
   * long for a batch where the model's queue policy allows it (`allow_timeout_override`) and it is the shorter.
   */
  queueTimeoutUs?: number;
  /**
   * The request's priority (KServe's `priority` parameter): each of its model requests waits at that level of a
   * dynamic batcher with `priority_levels` (1 first; 0 or above the levels: the model's default level).
   */
  priority?: number;
  /**
   * Run the graph as exported: compiled to its Triton repository and run from there, the generated
   * model.py of its routers, gates, ops or BLS model in python3 instead of the TypeScript ops.
   */
  exported?: boolean;
  /**
   * With `exported`: run only this model of the graph's exported repository (a model the compiler
   * generates for one of its steps, such as `ocr_has_text`), its inputs in and its outputs out.
   */
  exportedModel?: string;
  /**
   * The graph's outputs the request asks for (KServe's `outputs`; absent or empty: all). As in Triton's ensemble, only
   * the nodes that feed them run, and each response carries them alone and waits for nothing else.
   */
  requestedOutputs?: readonly string[];
  /** Sequence flags forwarded to every stateful model of the graph. */
  sequence?: { id: number | string; start: boolean; end: boolean };
  /** run.started, node.*, run.partial, run.log, run.exited_early, run.completed/failed, sequence.bound, notice. */
  onEvent?: (message: ServerMessage) => void;
  /**
   * Each response the graph sends, as Triton would send it to a client. A decoupled graph (a decoupled
   * model or a `gate`): each complete iteration of its outputs as soon as it is produced (`final`
   * false), then once `({}, true)` when the run ends without failing (an early exit through a gate
   * sends only that). A graph that is not decoupled: once, `(outputs, true)`, when it completes. Nothing
   * is called for a failed run (its RunResult says why).
   */
  onResponse?: (outputs: Record<string, Tensor>, final: boolean) => void;
}

export interface RunResult {
  runId: string;
  status: 'completed' | 'exited_early' | 'failed';
  outputs: Record<string, Tensor>;
  timings: NodeTiming[];
  /** When the graph's run started (`performance.now()` ms); its timings' `startMs` and `endMs` count from it. */
  startedAtMs?: number;
  exit?: {
    conditionId: string;
    expression: string;
    value: number | boolean;
    strategy: ConditionStrategy;
    message?: string;
  };
  error?: { code: string; message: string; nodeId?: string };
}

/** What `Engine.health()` reports; `/api/health` sends it as its `engine` field. */
export type EngineHealth = ApiEngineHealth;

/** A sequence holding a slot of `instance`, or waiting in the model's backlog (`instance: null`). */
export interface SequenceInfo {
  model: string;
  sequenceId: number | string;
  instance: string | null;
  lastActiveMs: number;
}
