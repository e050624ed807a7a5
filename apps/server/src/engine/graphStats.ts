import {
  emptyGraphMetrics,
  noCacheCounters,
  type CacheCounters,
  type FailureReason,
  type GraphMetrics,
} from './Metrics.ts';
import type { RunResult } from './types.ts';

/** Graph names counted one by one; the runs of any further names share OTHER_GRAPHS. */
const MAX_GRAPH_STATS = 256;
const OTHER_GRAPHS = '(other graphs)';

/**
 * Run counters per graph name. Clients can send any number of inline graphs, so past MAX_GRAPH_STATS names their
 * runs are pooled under OTHER_GRAPHS (the metrics' label set stays bounded).
 * @example const stats = new GraphStats(); stats.of('ocr').streamedResponses += 2;
 */
export class GraphStats {
  private readonly byName = new Map<string, GraphMetrics>();

  /** The counters of `graph` (or the pooled ones). */
  of(graph: string): GraphMetrics {
    let s = this.byName.get(graph);
    if (s) return s;
    const key = this.byName.size < MAX_GRAPH_STATS ? graph : OTHER_GRAPHS;
    s = this.byName.get(key);
    if (!s) this.byName.set(key, (s = emptyGraphMetrics()));
    return s;
  }

  /**
   * Counts one finished run of `graph`: an early exit succeeds (Triton counts the request as answered), anything
   * but completed or exited early fails (CANCELED when it was cancelled, else OTHER, as Triton's ensemble scheduler
   * reports a failed step); `ms` adds to the graph's total duration.
   */
  record(graph: string, status: RunResult['status'] | 'threw', ms: number, errorCode?: string): void {
    const stats = this.of(graph);
    if (status === 'completed' || status === 'exited_early') stats.requestSuccess++;
    else {
      const reason: FailureReason = errorCode === 'cancelled' ? 'CANCELED' : 'OTHER';
      stats.requestFailure++;
      stats.failures[reason]++;
    }
    if (status === 'exited_early') stats.exitedEarly++;
    stats.durationNs += Math.round(ms * 1e6);
    stats.lastRunMs = Date.now();
  }

  /** The response-cache counters of `graph` (an ensemble whose config enables the cache), made on first use. */
  cacheOf(graph: string): CacheCounters {
    const stats = this.of(graph);
    return (stats.cache ??= noCacheCounters());
  }

  /** Every graph's counters, by name. */
  all(): Record<string, GraphMetrics> {
    return Object.fromEntries(this.byName);
  }
}
