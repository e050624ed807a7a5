import { Router } from 'express';
import type { Studio } from '../Studio.ts';
import { customMetricLines, escLabel as esc } from './customMetricLines.ts';
import { cpuMetrics } from '../cpuMetrics.ts';
import { catalogueModel, ownValue } from '@ensemble-studio/core';
import { FAILURE_REASONS, noFailures, type EngineMetrics, type FailureCounts } from '../../engine/Metrics.ts';

/** One model's counters, in Triton's units (microseconds, counts). */
export interface ModelCounters {
  model: string;
  version: string;
  success: number;
  /** Failed requests by Triton's reason (REJECTED, CANCELED, BACKEND, OTHER). */
  failures: FailureCounts;
  /** Inferences (batch elements) and executions (batches). */
  inferenceCount: number;
  execCount: number;
  requestDurationUs: number;
  queueDurationUs: number;
  computeInputDurationUs: number;
  computeInferDurationUs: number;
  computeOutputDurationUs: number;
  /** Streamed (decoupled / partial) responses. */
  responses?: number;
  /** Sequences currently bound to this model's instances. */
  activeSequences?: number;
  /** Requests accepted and not yet executing (models only: a graph's run starts at once, as Triton's ensembles do). */
  pendingRequests?: number;
  /** The model's load time, once loaded. */
  loadSeconds?: number;
  /** The response cache's hits and misses (µs), for a model that caches its responses. */
  cache?: { hits: number; hitUs: number; misses: number; missUs: number };
}

interface Family {
  name: string;
  help: string;
  type: 'counter' | 'gauge';
  /** The model's value; undefined leaves the model out of the family. */
  value: (c: ModelCounters) => number | undefined;
  /** A series per failure reason (`reason` label) instead of `value`'s one. */
  byReason?: (c: ModelCounters) => FailureCounts;
}

const FAMILIES: Family[] = [
  {
    name: 'nv_inference_request_success',
    help: 'Number of successful inference requests, all batch sizes',
    type: 'counter',
    value: (c) => c.success,
  },
  {
    name: 'nv_inference_request_failure',
    help: 'Number of failed inference requests, all batch sizes',
    type: 'counter',
    value: () => undefined,
    byReason: (c) => c.failures,
  },
  {
    name: 'nv_inference_count',
    help: 'Number of inferences performed (does not include cached requests)',
    type: 'counter',
    value: (c) => c.inferenceCount,
  },
  {
    name: 'nv_inference_exec_count',
    help: 'Number of model executions performed (does not include cached requests)',
    type: 'counter',
    value: (c) => c.execCount,
  },
  {
    name: 'nv_inference_request_duration_us',
    help: 'Cumulative inference request duration in microseconds (includes cached requests)',
    type: 'counter',
    value: (c) => c.requestDurationUs,
  },
  {
    name: 'nv_inference_queue_duration_us',
    help: 'Cumulative inference queuing duration in microseconds (includes cached requests)',
    type: 'counter',
    value: (c) => c.queueDurationUs,
  },
  {
    name: 'nv_inference_compute_input_duration_us',
    help: 'Cumulative compute input duration in microseconds (does not include cached requests)',
    type: 'counter',
    value: (c) => c.computeInputDurationUs,
  },
  {
    name: 'nv_inference_compute_infer_duration_us',
    help: 'Cumulative compute inference duration in microseconds (does not include cached requests)',
    type: 'counter',
    value: (c) => c.computeInferDurationUs,
  },
  {
    name: 'nv_inference_compute_output_duration_us',
    help: 'Cumulative inference compute output duration in microseconds (does not include cached requests)',
    type: 'counter',
    value: (c) => c.computeOutputDurationUs,
  },
  {
    name: 'nv_inference_response_count',
    help: 'Number of responses sent, including streamed (decoupled) responses',
    type: 'counter',
    value: (c) => c.responses,
  },
  {
    name: 'nv_inference_active_sequences',
    help: 'Sequences currently bound to an instance of the model',
    type: 'gauge',
    value: (c) => c.activeSequences,
  },
  {
    name: 'nv_inference_pending_request_count',
    help: 'Instantaneous number of pending requests awaiting execution per-model.',
    type: 'gauge',
    value: (c) => c.pendingRequests,
  },
  {
    name: 'nv_cache_num_hits_per_model',
    help: 'Number of cache hits per model',
    type: 'counter',
    value: (c) => c.cache?.hits,
  },
  {
    name: 'nv_cache_hit_duration_per_model',
    help: 'Total cache hit duration per model, in microseconds',
    type: 'counter',
    value: (c) => c.cache?.hitUs,
  },
  {
    name: 'nv_cache_num_misses_per_model',
    help: 'Number of cache misses per model',
    type: 'counter',
    value: (c) => c.cache?.misses,
  },
  {
    name: 'nv_cache_miss_duration_per_model',
    help: 'Total cache miss (insert+lookup) duration per model, in microseconds',
    type: 'counter',
    value: (c) => c.cache?.missUs,
  },
  {
    name: 'nv_model_load_duration_secs',
    help: 'Model load time in seconds',
    type: 'gauge',
    value: (c) => c.loadSeconds,
  },
];

/**
 * Prometheus text exposition (version 0.0.4) of per-model counters, with Triton's metric names and
 * `model`/`version` labels so existing Triton dashboards work.
 * @example formatMetrics([{ model: 'det', version: '1', success: 3, … }])
 */
function formatMetrics(counters: readonly ModelCounters[], gauges: Record<string, number> = {}): string {
  const lines: string[] = [];
  for (const f of FAMILIES) {
    const rows = f.byReason ? counters : counters.filter((c) => f.value(c) !== undefined);
    if (rows.length === 0) continue;
    lines.push(`# HELP ${f.name} ${f.help}`, `# TYPE ${f.name} ${f.type}`);
    for (const c of rows) {
      const model = `model="${esc(c.model)}"`;
      const version = `version="${esc(c.version)}"`;
      // Labels in name order, as prometheus-cpp writes them: model, reason, version.
      if (f.byReason)
        for (const r of FAILURE_REASONS) lines.push(`${f.name}{${model},reason="${r}",${version}} ${f.byReason(c)[r]}`);
      else lines.push(`${f.name}{${model},${version}} ${f.value(c)}`);
    }
  }
  for (const [name, value] of Object.entries(gauges)) lines.push(`# TYPE ${name} gauge`, `${name} ${value}`);
  return `${lines.join('\n')}\n`;
}

/**
 * `GET /metrics` from the engine's counters.
 * @example app.use(metricsRouter(studio))
 */
export function metricsRouter(studio: Studio): Router {
  const router = Router();
  const cpu = cpuMetrics();
  router.get('/metrics', (_req, res) => {
    // One snapshot of the engine's counters for the whole page.
    const m = studio.engine.metrics();
    const counters = engineCounters(studio, m);
    const text = formatMetrics(counters, {
      studio_runs_in_flight: studio.runsInFlight,
      studio_runs_waiting: studio.runsWaiting,
    });
    const more = [...batchSizeLines(m), ...cpu.lines(), ...customMetricLines(m.custom ?? [])];
    res.type('text/plain; version=0.0.4; charset=utf-8').send(more.length ? `${text}${more.join('\n')}\n` : text);
  });
  return router;
}

/** Adapts `engine.metrics()` to Triton's per-model counters (models, then graphs as ensembles). */
function engineCounters(studio: Studio, m: EngineMetrics): ModelCounters[] {
  const version = (name: string) => String(catalogueModel(studio.catalogue, name)?.versions.at(-1) ?? 1);
  const models: ModelCounters[] = Object.entries(m.models).map(([model, c]) => ({
    model,
    version: version(model),
    success: c.requestSuccess,
    failures: c.failures,
    inferenceCount: c.inferenceCount,
    execCount: c.execCount,
    requestDurationUs: Math.round(
      (c.queueNs +
        c.computeInputNs +
        c.computeNs +
        c.computeOutputNs +
        (c.cache?.hitNs ?? 0) +
        (c.cache?.missNs ?? 0)) /
        1000,
    ),
    queueDurationUs: Math.round(c.queueNs / 1000),
    computeInputDurationUs: Math.round(c.computeInputNs / 1000),
    computeInferDurationUs: Math.round(c.computeNs / 1000),
    computeOutputDurationUs: Math.round(c.computeOutputNs / 1000),
    activeSequences: c.activeSequences,
    pendingRequests: c.pendingRequests,
    ...(c.loadMs === undefined ? {} : { loadSeconds: c.loadMs / 1000 }),
    ...(c.cache
      ? {
          cache: {
            hits: c.cache.hits,
            hitUs: Math.round(c.cache.hitNs / 1000),
            misses: c.cache.misses,
            missUs: Math.round(c.cache.missNs / 1000),
          },
        }
      : {}),
  }));
  // Graph names come from clients (inline documents): only saved graphs get a label of their own, so
  // the label set stays as small as the repository however many names clients make up.
  const graphs = new Map<string, ModelCounters>();
  for (const [name, g] of Object.entries(m.graphs)) {
    const model = ownValue(studio.repository.graphs, name) ? name : UNSAVED_GRAPHS;
    const c = graphs.get(model) ?? {
      model,
      version: '1',
      success: 0,
      failures: noFailures(),
      inferenceCount: 0,
      execCount: 0,
      requestDurationUs: 0,
      queueDurationUs: 0,
      computeInputDurationUs: 0,
      computeInferDurationUs: 0,
      computeOutputDurationUs: 0,
      responses: 0,
    };
    const us = Math.round(g.durationNs / 1000);
    const hits = g.cache?.hits ?? 0;
    c.success += g.requestSuccess;
    for (const r of FAILURE_REASONS) c.failures[r] += g.failures[r];
    c.inferenceCount += g.requestSuccess - hits;
    c.execCount += g.requestSuccess - hits;
    if (g.cache) {
      const cache = (c.cache ??= { hits: 0, hitUs: 0, misses: 0, missUs: 0 });
      cache.hits += hits;
      cache.hitUs += Math.round(g.cache.hitNs / 1000);
      cache.misses += g.cache.misses;
      cache.missUs += Math.round(g.cache.missNs / 1000);
    }
    c.requestDurationUs += us;
    c.computeInferDurationUs += us;
    c.responses = (c.responses ?? 0) + (g.streamedResponses ?? 0);
    graphs.set(model, c);
  }
  return [...models, ...graphs.values()];
}

/** The `model` label of every graph run that is not a saved graph (no model can have this name). */
export const UNSAVED_GRAPHS = '(unsaved graphs)';

/** Executions per batch size, per model (`studio_batch_executions_total{model,version,batch_size}`). */
function batchSizeLines(m: EngineMetrics): string[] {
  const lines: string[] = [];
  for (const [model, c] of Object.entries(m.models)) {
    for (const [size, n] of Object.entries(c.batchSizes))
      lines.push(`studio_batch_executions_total{model="${esc(model)}",version="1",batch_size="${size}"} ${n}`);
  }
  return lines.length
    ? [
        '# HELP studio_batch_executions_total Model executions per batch size',
        '# TYPE studio_batch_executions_total counter',
        ...lines,
      ]
    : [];
}
