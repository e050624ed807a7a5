import type { ComputeStamps } from './computeStamps.ts';
import type { CustomFamily } from './customMetrics.ts';

/** Why a request failed, as Triton's `nv_inference_request_failure` says in its `reason` label. */
export type FailureReason = 'REJECTED' | 'CANCELED' | 'BACKEND' | 'OTHER';
export const FAILURE_REASONS: readonly FailureReason[] = ['REJECTED', 'CANCELED', 'BACKEND', 'OTHER'];
export type FailureCounts = Record<FailureReason, number>;
export const noFailures = (): FailureCounts => ({ REJECTED: 0, CANCELED: 0, BACKEND: 0, OTHER: 0 });

/** Counters of one model, named after Triton's metrics (nv_inference_*). */
export interface ModelMetrics {
  /** nv_inference_request_success / _failure (all reasons; by reason in `failures`). */
  requestSuccess: number;
  requestFailure: number;
  failures: FailureCounts;
  /** nv_inference_count: inferences (batch rows) performed. */
  inferenceCount: number;
  /** nv_inference_exec_count: model executions (batches). */
  execCount: number;
  /** nv_inference_queue_duration_us, nv_inference_compute_{input,infer,output}_duration_us, in ns. */
  queueNs: number;
  computeInputNs: number;
  computeNs: number;
  computeOutputNs: number;
  /** Executions per batch size, and their compute input, infer and output times (ns) per batch size. */
  batchSizes: Record<number, number>;
  batchDurations: Record<number, BatchDurations>;
  activeSequences: number;
  /** Requests accepted and not yet executing (Triton's `nv_inference_pending_request_count`). */
  pendingRequests: number;
  /** How long the model took to load, in ms (Triton's `nv_model_load_duration_secs`); absent until it has loaded. */
  loadMs?: number;
  /** When the model last executed, in ms since the epoch (0: never); Triton's `last_inference`. */
  lastInferenceMs: number;
  /** The response cache's hits and misses, for a model that caches its responses (absent otherwise). */
  cache?: CacheCounters;
}

/**
 * Triton's cache statistics of one model: hits (answered from the cache, the lookup's time) and misses (executed, the
 * lookup's and the insertion's time), in ns.
 */
export interface CacheCounters {
  hits: number;
  hitNs: number;
  misses: number;
  missNs: number;
}

export const noCacheCounters = (): CacheCounters => ({ hits: 0, hitNs: 0, misses: 0, missNs: 0 });

/** Counts in `c` one request the cache answered (`hit`) or did not, whose lookup (and a miss's insertion) took `ns`. */
export function countCache(c: CacheCounters, hit: boolean, ns: number): void {
  if (hit) {
    c.hits++;
    c.hitNs += ns;
  } else {
    c.misses++;
    c.missNs += ns;
  }
}

/** The compute times of a batch size's executions, in ns (Triton's `batch_stats`). */
export interface BatchDurations {
  inputNs: number;
  inferNs: number;
  outputNs: number;
}

/** Counters of one graph (ensemble). */
export interface GraphMetrics {
  requestSuccess: number;
  requestFailure: number;
  failures: FailureCounts;
  exitedEarly: number;
  /** Partial results (decoupled responses, per-node outputs) streamed to clients. */
  streamedResponses: number;
  durationNs: number;
  /** When the graph last finished a run, in ms since the epoch (0: never). */
  lastRunMs: number;
  /** The response cache's hits and misses of an ensemble whose config enables it (absent otherwise). */
  cache?: CacheCounters;
}

export interface EngineMetrics {
  models: Record<string, ModelMetrics>;
  graphs: Record<string, GraphMetrics>;
  /** Python models' own metric families (`pb_utils.MetricFamily`), server-wide. */
  custom?: CustomFamily[];
}

/** Mutable counters behind a model's ModelMetrics. */
export class ModelStats {
  requestSuccess = 0;
  requestFailure = 0;
  readonly failures = noFailures();
  inferenceCount = 0;
  execCount = 0;
  queueNs = 0;
  computeInputNs = 0;
  computeNs = 0;
  computeOutputNs = 0;
  batchSizes = new Map<number, number>();
  private readonly batchDurations = new Map<number, BatchDurations>();
  lastInferenceMs = 0;
  /** Set for a model that caches its responses. */
  cache: CacheCounters | undefined;

  success(): void {
    this.requestSuccess++;
  }
  failure(reason: FailureReason): void {
    this.requestFailure++;
    this.failures[reason]++;
  }

  /**
   * One execution of `rows` batch rows: its wait for an instance, the model's own time, and (when the backend stamped
   * them) the hand-over to the instance and back (Triton's compute input and output).
   */
  execution(rows: number, queueNs: number, computeNs: number, inputNs = 0, outputNs = 0): void {
    this.execCount++;
    this.inferenceCount += rows;
    this.queueNs += queueNs;
    this.computeInputNs += inputNs;
    this.computeNs += computeNs;
    this.computeOutputNs += outputNs;
    this.batchSizes.set(rows, (this.batchSizes.get(rows) ?? 0) + 1);
    let d = this.batchDurations.get(rows);
    if (!d) this.batchDurations.set(rows, (d = { inputNs: 0, inferNs: 0, outputNs: 0 }));
    d.inputNs += inputNs;
    d.inferNs += computeNs;
    d.outputNs += outputNs;
    this.lastInferenceMs = Date.now();
  }

  /** A request answered from the response cache, whose lookup took `ns`: a success with no execution, as Triton counts it. */
  cacheHit(ns: number): void {
    this.requestSuccess++;
    countCache((this.cache ??= noCacheCounters()), true, ns);
  }

  /** A request the response cache did not hold, executed and stored: its lookup and insertion took `ns`. */
  cacheMiss(ns: number): void {
    countCache((this.cache ??= noCacheCounters()), false, ns);
  }

  /** The counters, with the gauges the runtime knows: sequences bound, requests pending, the load's duration. */
  snapshot(activeSequences: number, pendingRequests = 0, loadMs?: number): ModelMetrics {
    return {
      requestSuccess: this.requestSuccess,
      requestFailure: this.requestFailure,
      failures: { ...this.failures },
      inferenceCount: this.inferenceCount,
      execCount: this.execCount,
      queueNs: this.queueNs,
      computeInputNs: this.computeInputNs,
      computeNs: this.computeNs,
      computeOutputNs: this.computeOutputNs,
      batchSizes: Object.fromEntries(this.batchSizes),
      batchDurations: Object.fromEntries([...this.batchDurations].map(([size, d]) => [size, { ...d }])),
      activeSequences,
      pendingRequests,
      ...(loadMs === undefined ? {} : { loadMs }),
      lastInferenceMs: this.lastInferenceMs,
      ...(this.cache ? { cache: { ...this.cache } } : {}),
    };
  }
}

/** Mutable counters behind a graph's GraphMetrics. */
export function emptyGraphMetrics(): GraphMetrics {
  return {
    requestSuccess: 0,
    requestFailure: 0,
    failures: noFailures(),
    exitedEarly: 0,
    streamedResponses: 0,
    durationNs: 0,
    lastRunMs: 0,
  };
}

/**
 * Records one backend execution in `stats` as its reply comes back (`endNs`, now unless given): with the backend's stamps (an instance took
 * it, the model began and ended), compute input, infer and output apart; without them, its compute time whole.
 */
export function recordExecution(
  stats: ModelStats,
  rows: number,
  r: { queueNs: number; computeNs: number } & ComputeStamps,
  endNs?: number,
): void {
  if (r.startNs === undefined || r.inferStartNs === undefined || r.inferEndNs === undefined)
    return stats.execution(rows, r.queueNs, r.computeNs);
  const inputNs = Math.max(0, r.inferStartNs - r.startNs);
  const outputNs = Math.max(0, (endNs ?? Number(process.hrtime.bigint())) - r.inferEndNs);
  stats.execution(rows, r.queueNs, Math.max(0, r.inferEndNs - r.inferStartNs), inputNs, outputNs);
}
