import type { RequestHandler, Response } from 'express';
import type { GraphDoc, Tensor } from '@ensemble-studio/core';
import type { RunResult } from '../engine/types.ts';
import { nowNs, type ClockPair, type RequestTrace } from '../trace/requestTrace.ts';
import { findServedModel, type ServedModel } from './servedModels.ts';
import type { Studio } from './Studio.ts';

// Where the KServe endpoints meet the trace extension (trace/): a request is sampled under its model's setting, its
// frontend's timestamps are taken where it is received and sent, and its run is written as Triton's records.

/** Starts a trace of a request to `model` when its setting samples it (nothing to do while tracing is off). */
export function startTrace(studio: Studio, model: string): RequestTrace | undefined {
  return studio.traces.active ? studio.traces.start(model) : undefined;
}

/** Notes when a request's head arrived (`HTTP_RECV_START`), while any trace setting traces. */
export function traceArrival(studio: Studio): RequestHandler {
  return (_req, res, next) => {
    if (studio.traces.active) res.locals.arrivedNs = nowNs();
    next();
  };
}

/**
 * Starts an HTTP request's trace once its body is in (`HTTP_RECV_START` when its head came, `HTTP_RECV_END` now); the
 * trace ends when the response has been sent (`HTTP_SEND_END`) or the connection closed.
 */
export function startHttpTrace(studio: Studio, res: Response, model: string): RequestTrace | undefined {
  const trace = startTrace(studio, model);
  if (!trace) return undefined;
  const arrived = res.locals.arrivedNs as bigint | undefined;
  if (arrived !== undefined) trace.stamp('HTTP_RECV_START', arrived);
  trace.stamp('HTTP_RECV_END');
  let sending = false;
  const send = res.end.bind(res) as (...args: unknown[]) => Response;
  res.end = ((...args: unknown[]) => {
    sending = true;
    trace.stamp('HTTP_SEND_START');
    return send(...args);
  }) as Response['end'];
  res.once('close', () => {
    if (sending && res.writableFinished) trace.stamp('HTTP_SEND_END');
    trace.end();
  });
  return trace;
}

/** What a traced request ran, beside its run's result. */
export interface TracedRequest {
  served: ServedModel;
  graph: GraphDoc;
  plainModel: string | undefined;
  requestId?: string;
  requestStart: ClockPair;
  inputs: Record<string, Tensor>;
}

/** Writes the model's records of a finished run into its trace (a graph's steps as child traces). */
export function traceRun(studio: Studio, trace: RequestTrace, r: TracedRequest, result: RunResult): void {
  trace.run({
    model: r.served.name,
    version: r.served.versions.at(-1) ?? 1,
    ...(r.requestId ? { requestId: r.requestId } : {}),
    requestStart: r.requestStart,
    graph: r.graph,
    startedAtMs: result.startedAtMs ?? 0,
    timings: result.timings,
    plainModel: r.plainModel !== undefined,
    inputs: r.inputs,
    outputs: result.outputs,
    versionOf: (model) => latestVersion(studio, model),
  });
}

function latestVersion(studio: Studio, model: string): number {
  try {
    return findServedModel(studio, model, undefined).versions.at(-1) ?? 1;
  } catch {
    return 1;
  }
}
