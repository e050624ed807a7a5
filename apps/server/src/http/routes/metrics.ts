import { Router } from 'express';
import type { Studio } from '../Studio.ts';

/** One model's counters, in Triton's units (microseconds, counts). */
export interface ModelCounters {
  model: string;
  version: string;
  success: number;
  failure: number;
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
}

interface Family { name: string; help: string; type: 'counter' | 'gauge'; value: (c: ModelCounters) => number | undefined }

const FAMILIES: Family[] = [
  { name: 'nv_inference_request_success', help: 'Number of successful inference requests, all batch sizes', type: 'counter', value: (c) => c.success },
  { name: 'nv_inference_request_failure', help: 'Number of failed inference requests, all batch sizes', type: 'counter', value: (c) => c.failure },
  { name: 'nv_inference_count', help: 'Number of inferences performed (does not include cached requests)', type: 'counter', value: (c) => c.inferenceCount },
  { name: 'nv_inference_exec_count', help: 'Number of model executions performed (does not include cached requests)', type: 'counter', value: (c) => c.execCount },
  { name: 'nv_inference_request_duration_us', help: 'Cumulative inference request duration in microseconds (includes cached requests)', type: 'counter', value: (c) => c.requestDurationUs },
  { name: 'nv_inference_queue_duration_us', help: 'Cumulative inference queuing duration in microseconds (includes cached requests)', type: 'counter', value: (c) => c.queueDurationUs },
  { name: 'nv_inference_compute_input_duration_us', help: 'Cumulative compute input duration in microseconds (does not include cached requests)', type: 'counter', value: (c) => c.computeInputDurationUs },
  { name: 'nv_inference_compute_infer_duration_us', help: 'Cumulative compute inference duration in microseconds (does not include cached requests)', type: 'counter', value: (c) => c.computeInferDurationUs },
  { name: 'nv_inference_compute_output_duration_us', help: 'Cumulative inference compute output duration in microseconds (does not include cached requests)', type: 'counter', value: (c) => c.computeOutputDurationUs },
  { name: 'nv_inference_response_count', help: 'Number of responses sent, including streamed (decoupled) responses', type: 'counter', value: (c) => c.responses },
  { name: 'nv_inference_active_sequences', help: 'Sequences currently bound to an instance of the model', type: 'gauge', value: (c) => c.activeSequences },
];

const esc = (v: string) => v.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, '\\n');

/**
 * Prometheus text exposition (version 0.0.4) of per-model counters, with Triton's metric names and
 * `model`/`version` labels so existing Triton dashboards work.
 * @example formatMetrics([{ model: 'det', version: '1', success: 3, … }])
 */
export function formatMetrics(counters: readonly ModelCounters[], gauges: Record<string, number> = {}): string {
  const lines: string[] = [];
  for (const f of FAMILIES) {
    const rows = counters.filter((c) => f.value(c) !== undefined);
    if (rows.length === 0) continue;
    lines.push(`# HELP ${f.name} ${f.help}`, `# TYPE ${f.name} ${f.type}`);
    for (const c of rows) lines.push(`${f.name}{model="${esc(c.model)}",version="${esc(c.version)}"} ${f.value(c)}`);
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
  router.get('/metrics', (_req, res) => {
    const counters = engineCounters(studio);
    res.type('text/plain; version=0.0.4; charset=utf-8').send(formatMetrics(counters, { studio_runs_in_flight: studio.runsInFlight }));
  });
  return router;
}

/** Adapts `engine.metrics()` to Triton's per-model counters. */
export function engineCounters(studio: Studio): ModelCounters[] {
  const m = studio.engine.metrics() as unknown as { models?: Record<string, Partial<ModelCounters>> };
  return Object.entries(m.models ?? {}).map(([model, c]) => ({
    model, version: c.version ?? '1', success: c.success ?? 0, failure: c.failure ?? 0, inferenceCount: c.inferenceCount ?? 0,
    execCount: c.execCount ?? 0, requestDurationUs: c.requestDurationUs ?? 0, queueDurationUs: c.queueDurationUs ?? 0,
    computeInputDurationUs: c.computeInputDurationUs ?? 0, computeInferDurationUs: c.computeInferDurationUs ?? 0,
    computeOutputDurationUs: c.computeOutputDurationUs ?? 0, responses: c.responses, activeSequences: c.activeSequences,
  }));
}
