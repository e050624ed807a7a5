import { emptyGraphMetrics, noCacheCounters, noFailures } from '../engine/Metrics.ts';
import type { ModelMetrics, GraphMetrics } from '../engine/types.ts';
import { allHelpers } from './helperModels.ts';
import { isUnloaded } from './modelLoading.ts';
import { findServedModel } from './servedModels.ts';
import type { Studio } from './Studio.ts';

/** A count and the nanoseconds they took together (`StatisticDuration`). */
export interface Duration {
  count: number;
  ns: number;
}

/** One model's statistics in Triton's form (the gRPC `ModelStatistics` message and the HTTP JSON alike). */
export interface ModelStatisticsEntry {
  name: string;
  version: string;
  last_inference: number;
  inference_count: number;
  execution_count: number;
  inference_stats: {
    success: Duration;
    fail: Duration;
    queue: Duration;
    compute_input: Duration;
    compute_infer: Duration;
    compute_output: Duration;
    cache_hit: Duration;
    cache_miss: Duration;
  };
  /** Per-response statistics of decoupled models; the engine does not measure them, so empty. */
  response_stats: Record<string, never>;
  batch_stats: { batch_size: number; compute_input: Duration; compute_infer: Duration; compute_output: Duration }[];
  /** Memory used at load, which the engine does not measure: empty. */
  memory_usage: never[];
}

const d = (count: number, ns: number): Duration => ({ count, ns });

function fromModel(name: string, version: string, m: ModelMetrics): ModelStatisticsEntry {
  const ok = m.requestSuccess;
  // Triton adds a hit's lookup and a miss's lookup and insertion to the request's duration.
  const cache = m.cache ?? noCacheCounters();
  return {
    name,
    version,
    last_inference: m.lastInferenceMs,
    inference_count: m.inferenceCount,
    execution_count: m.execCount,
    inference_stats: {
      success: d(ok, m.queueNs + m.computeInputNs + m.computeNs + m.computeOutputNs + cache.hitNs + cache.missNs),
      fail: d(m.requestFailure, 0),
      queue: d(ok, m.queueNs),
      compute_input: d(ok, m.computeInputNs),
      compute_infer: d(ok, m.computeNs),
      compute_output: d(ok, m.computeOutputNs),
      cache_hit: d(cache.hits, cache.hitNs),
      cache_miss: d(cache.misses, cache.missNs),
    },
    response_stats: {},
    batch_stats: Object.entries(m.batchSizes).map(([size, n]) => {
      const t = m.batchDurations[Number(size)];
      return {
        batch_size: Number(size),
        compute_input: d(n, t?.inputNs ?? 0),
        compute_infer: d(n, t?.inferNs ?? 0),
        compute_output: d(n, t?.outputNs ?? 0),
      };
    }),
    memory_usage: [],
  };
}

function fromGraph(name: string, g: GraphMetrics): ModelStatisticsEntry {
  const ok = g.requestSuccess;
  const cache = g.cache ?? noCacheCounters();
  return {
    name,
    version: '1',
    last_inference: g.lastRunMs,
    // A run answered from the cache ran no step: a success, not an inference or an execution.
    inference_count: ok - cache.hits,
    execution_count: ok - cache.hits,
    inference_stats: {
      success: d(ok, g.durationNs),
      fail: d(g.requestFailure, 0),
      queue: d(ok, 0),
      compute_input: d(ok, 0),
      compute_infer: d(ok, g.durationNs),
      compute_output: d(ok, 0),
      cache_hit: d(cache.hits, cache.hitNs),
      cache_miss: d(cache.misses, cache.missNs),
    },
    response_stats: {},
    batch_stats: [],
    memory_usage: [],
  };
}

const EMPTY: ModelMetrics = {
  requestSuccess: 0,
  requestFailure: 0,
  failures: noFailures(),
  inferenceCount: 0,
  execCount: 0,
  queueNs: 0,
  computeInputNs: 0,
  computeNs: 0,
  computeOutputNs: 0,
  batchSizes: {},
  batchDurations: {},
  activeSequences: 0,
  pendingRequests: 0,
  lastInferenceMs: 0,
};

/**
 * Triton's statistics extension, for HTTP (`/v2/models[/m[/versions/v]]/stats`) and gRPC (`ModelStatistics`)
 * alike, from `engine.metrics()`: one model, saved graph or helper model (`name`, and `version` when given),
 * or every one that is ready. A model that has not run yet reports zeros. Helper models run in their graph's
 * exported repository, whose engine keeps its own counters: theirs read zero here.
 * @throws ApiError 404 for an unknown or unloaded model or version (as the other model endpoints do)
 * @example modelStatistics(studio, 'ocr')[0].inference_count
 */
export function modelStatistics(studio: Studio, name?: string, version?: string): ModelStatisticsEntry[] {
  const metrics = studio.engine.metrics();
  const entry = (n: string, v: string | undefined): ModelStatisticsEntry => {
    const served = findServedModel(studio, n, v);
    if (served.graph) return fromGraph(n, metrics.graphs[n] ?? emptyGraphMetrics());
    return fromModel(n, v ?? String(served.versions.at(-1) ?? 1), metrics.models[n] ?? EMPTY);
  };
  if (name !== undefined) return [entry(name, version)];
  const names = new Set([
    ...Object.keys(studio.catalogue.models),
    ...Object.keys(studio.repository.graphs),
    ...allHelpers(studio).keys(),
  ]);
  // Triton lists the models it has loaded: not those that failed to load or were unloaded.
  return [...names]
    .sort()
    .filter((n) => !isUnloaded(studio, n) && findServedModel(studio, n, undefined).ready)
    .map((n) => entry(n, undefined));
}
