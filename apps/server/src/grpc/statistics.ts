import type { Studio } from '../http/Studio.ts';
import type { ModelMetrics, GraphMetrics } from '../engine/types.ts';

/** A count and the nanoseconds they took together (`StatisticDuration`). */
export interface Duration { count: number; ns: number }

/** One model's statistics in Triton's form (the gRPC `ModelStatistics` message and the HTTP JSON alike). */
export interface ModelStatisticsEntry {
  name: string;
  version: string;
  last_inference: number;
  inference_count: number;
  execution_count: number;
  inference_stats: { success: Duration; fail: Duration; queue: Duration; compute_input: Duration; compute_infer: Duration; compute_output: Duration; cache_hit: Duration; cache_miss: Duration };
  batch_stats: { batch_size: number; compute_input: Duration; compute_infer: Duration; compute_output: Duration }[];
}

const d = (count: number, ns: number): Duration => ({ count, ns });

function fromModel(name: string, version: string, m: ModelMetrics): ModelStatisticsEntry {
  const ok = m.requestSuccess;
  // The engine measures queue and compute time per execution, not per batch size: batch entries carry counts only.
  return {
    name, version, last_inference: 0, inference_count: m.inferenceCount, execution_count: m.execCount,
    inference_stats: {
      success: d(ok, m.queueNs + m.computeNs), fail: d(m.requestFailure, 0), queue: d(ok, m.queueNs),
      compute_input: d(ok, 0), compute_infer: d(ok, m.computeNs), compute_output: d(ok, 0), cache_hit: d(0, 0), cache_miss: d(0, 0),
    },
    batch_stats: Object.entries(m.batchSizes).map(([size, n]) => ({ batch_size: Number(size), compute_input: d(n, 0), compute_infer: d(n, 0), compute_output: d(n, 0) })),
  };
}

function fromGraph(name: string, g: GraphMetrics): ModelStatisticsEntry {
  const ok = g.requestSuccess;
  return {
    name, version: '1', last_inference: 0, inference_count: ok, execution_count: ok,
    inference_stats: {
      success: d(ok, g.durationNs), fail: d(g.requestFailure, 0), queue: d(ok, 0),
      compute_input: d(ok, 0), compute_infer: d(ok, g.durationNs), compute_output: d(ok, 0), cache_hit: d(0, 0), cache_miss: d(0, 0),
    },
    batch_stats: [],
  };
}

const EMPTY: ModelMetrics = { requestSuccess: 0, requestFailure: 0, inferenceCount: 0, execCount: 0, queueNs: 0, computeNs: 0, batchSizes: {}, activeSequences: 0 };

/**
 * Triton's statistics for one model or saved graph (`name`), or for every one the repository holds,
 * from `engine.metrics()`. A model that has not run yet reports zeros.
 * @example modelStatistics(studio, 'ocr')[0].inference_count
 */
export function modelStatistics(studio: Studio, name?: string): ModelStatisticsEntry[] {
  const metrics = studio.engine.metrics();
  const names = name ? [name] : [...new Set([...Object.keys(studio.catalogue.models), ...Object.keys(studio.repository.graphs)])].sort();
  return names.map((n) => {
    const graph = metrics.graphs[n];
    if (studio.repository.graphs[n] || graph) return fromGraph(n, graph ?? { requestSuccess: 0, requestFailure: 0, exitedEarly: 0, streamedResponses: 0, durationNs: 0 });
    return fromModel(n, String(studio.catalogue.models[n]?.versions.at(-1) ?? 1), metrics.models[n] ?? EMPTY);
  });
}
