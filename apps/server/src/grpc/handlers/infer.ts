import type { GraphDoc, Tensor } from '@ensemble-studio/core';
import { keyedRecord } from '@ensemble-studio/core';
import { status } from '@grpc/grpc-js';
import type { RunRequest, RunResult } from '../../engine/types.ts';
import { ApiError, badRequest } from '../../http/errors.ts';
import { findServedModel, type ServedModel } from '../../http/servedModels.ts';
import { checkInputs, checkOutputNames, withShared } from '../../http/kserveChecks.ts';
import { queueParamsOf, runError, sequenceOf } from '../../http/routes/kserveRun.ts';
import { runTarget, type RunTarget } from '../../http/runTarget.ts';
import type { Studio } from '../../http/Studio.ts';
import {
  inferResponse,
  requestInputs,
  requestParameters,
  type RequestTensors,
  type WireInferRequest,
  type WireInferResponse,
} from '../grpcTensors.ts';
import type { SharedInput, SharedWindowRef } from '../../http/kserveTensorParameters.ts';
import { openSharedTensors, type SharedTensors } from '../../http/sharedTensors.ts';
import { decodedRequest, type InferMessage } from '../deferredRequests.ts';
import { grpcStatus } from '../status.ts';
import { startTrace, traceRun } from '../../http/tracing.ts';
import { clockPair, nowNs } from '../../trace/requestTrace.ts';
import { checkRequestParameters, classificationCounts } from '../tensorParameters.ts';
import type { EncodedBytes } from '../../http/classification.ts';
import { classifyOutput } from '../../http/servedClassification.ts';

/** Called once per response a graph sends, as it is produced (the last one with `final`). */
export type ResponseListener = NonNullable<RunRequest['onResponse']>;

/** A checked `ModelInferRequest`, ready to run. */
export interface PreparedInfer {
  served: ServedModel;
  graph: GraphDoc;
  /** How the engine runs it (a helper model runs in its graph's exported repository). */
  run: RunTarget['run'];
  plainModel: RunTarget['plainModel'];
  inputs: Record<string, Tensor>;
  sequence: RunRequest['sequence'];
  params: Record<string, unknown>;
  decoupled: boolean;
  /** Output names asked for, in order (empty: all). */
  requested: string[];
  /**
   * An output as it is sent: classified when the request asked for classes of it (servedClassification.ts; a large
   * one in the body worker, which hands it back as wire bytes). `mayMove`: its buffer may go to the worker.
   */
  shape: (name: string, t: Tensor, mayMove: boolean) => Tensor | Promise<EncodedBytes>;
  /** What every response of this request repeats: the model, its version, the request's id. */
  base: { model_name: string; model_version: string; id: string };
  /** Inputs whose data is in shared memory (read before the run: `openShared`), and outputs to be written there. */
  sharedInputs: SharedInput[];
  outputWindows: { name: string; shm?: SharedWindowRef }[];
}

/**
 * Finds the model, decodes (unless the body worker did: `decoded`) and checks the tensors and the sequence
 * parameters of one request, with the same checks and messages as the HTTP endpoint.
 * @throws ApiError (404 unknown model, 503 not ready, 400 bad tensors or sequence parameters)
 */
export function prepareInfer(studio: Studio, req: WireInferRequest, decoded?: Partial<RequestTensors>): PreparedInfer {
  if (req.model_name === '') throw badRequest('ModelInferRequest.model_name is empty');
  const served = findServedModel(studio, req.model_name, req.model_version === '' ? undefined : req.model_version);
  if (!served.ready)
    throw new ApiError(503, 'unavailable', `model '${served.name}' is not ready: ${served.error ?? 'unavailable'}`);
  const target = runTarget(studio, served);
  checkRequestParameters(req.parameters);
  checkOutputNames(
    served,
    req.outputs?.map((o) => o.name),
    req.id,
  );
  const { inputs, shared, outputWindows } =
    decoded?.inputs && decoded.shared && decoded.outputWindows
      ? (decoded as RequestTensors)
      : requestInputs(req, studio.limits.maxTensorElements);
  checkInputs(served, withShared(inputs, shared), req.id);
  const params = requestParameters(req);
  const sequence = sequenceOf(served, params, target.stateful);
  const classes = classificationCounts(req.outputs);
  return {
    served,
    graph: target.graph,
    run: target.run,
    plainModel: target.plainModel,
    inputs,
    sequence,
    params,
    decoupled: target.decoupled,
    requested: (req.outputs ?? []).map((o) => o.name),
    shape: (name, t, mayMove) => {
      const k = classes.get(name);
      return k ? classifyOutput(studio, served, name, t, k, mayMove) : t;
    },
    base: { model_name: served.name, model_version: String(served.versions.at(-1) ?? 1), id: req.id },
    sharedInputs: shared,
    outputWindows,
  };
}

/** Holds the shared memory a prepared request names and reads its inputs from it (sharedTensors.ts). */
export function openShared(studio: Studio, p: PreparedInfer): Promise<SharedTensors | undefined> {
  return openSharedTensors(
    studio.sharedMemory,
    p.sharedInputs.length > 0 ? p.sharedInputs : undefined,
    p.outputWindows,
    p.inputs,
    studio.limits.maxBodyBytes,
  );
}

/**
 * Runs a prepared request on the engine under the studio's run limit; `onResponse` hears each
 * response as the graph produces it. `signal` cancels the run (the client went away).
 */
export async function runPrepared(
  studio: Studio,
  p: PreparedInfer,
  signal: AbortSignal,
  onResponse?: ResponseListener,
): Promise<RunResult> {
  // Over maxConcurrentRuns the run waits its turn, as Triton queues a request (up to maxQueuedRuns).
  const release = await studio.waitForRun(signal);
  const request: RunRequest = {
    graph: p.graph,
    inputs: p.inputs,
    signal,
    ...p.run,
    ...(p.sequence ? { sequence: p.sequence } : {}),
    ...(p.requested.length > 0 ? { requestedOutputs: p.requested } : {}),
    ...(p.base.id ? { requestId: p.base.id } : {}),
    ...queueParamsOf(p.params),
    ...(onResponse ? { onResponse } : {}),
  };
  try {
    return await studio.engine.run(request);
  } finally {
    release();
  }
}

/**
 * `ModelInfer`: one request, one response with every requested output as raw bytes. A decoupled
 * model or ensemble is refused as Triton refuses it (its responses need `ModelStreamInfer`).
 */
export async function modelInfer(
  studio: Studio,
  message: InferMessage,
  signal: AbortSignal,
): Promise<WireInferResponse> {
  const arrived = studio.traces.active ? nowNs() : undefined;
  const { request, ...decoded } = await decodedRequest(studio, message);
  const p = prepareInfer(studio, request, decoded);
  if (p.decoupled)
    throw grpcStatus(
      status.UNIMPLEMENTED,
      `ModelInfer RPC doesn't support models with decoupled transaction policy (model '${p.served.name}'; use ModelStreamInfer)`,
    );
  const trace = arrived === undefined ? undefined : startTrace(studio, p.served.name);
  trace?.stamp('GRPC_WAITREAD_START', arrived);
  trace?.stamp('GRPC_WAITREAD_END');
  const shared = await openShared(studio, p);
  try {
    const requestStart = clockPair();
    const result = await runPrepared(studio, p, signal);
    if (trace) traceRun(studio, trace, { ...p, requestId: p.base.id, requestStart }, result);
    const err = runError(result, p.plainModel);
    if (err) throw err;
    const outputs = await shapedOutputs(p, result.outputs, true);
    await shared?.writeOutputs(outputs);
    const response = inferResponse(p.base, outputs, p.requested, shared);
    if (trace) {
      // Handed to grpc-js once this call's promise settles; the response has been written by the next turn.
      trace.stamp('GRPC_SEND_START');
      setImmediate(() => {
        trace.stamp('GRPC_SEND_END');
        trace.end();
      });
    }
    return response;
  } catch (err) {
    trace?.end();
    throw err;
  } finally {
    shared?.release();
  }
}

/**
 * `outputs` as they are sent (`p.shape`), at once when none is classified in the body worker. `mayMove`: the outputs
 * are the run's last and nothing else sends them, so they may be handed to the worker (an output is asked for once:
 * one asked for twice is refused, as Triton refuses it).
 * @example inferResponse(p.base, await shapedOutputs(p, result.outputs, true), p.requested)
 */
export function shapedOutputs(
  p: PreparedInfer,
  outputs: Record<string, Tensor>,
  mayMove: boolean,
): Record<string, Tensor | EncodedBytes> | Promise<Record<string, Tensor | EncodedBytes>> {
  const out = keyedRecord<Tensor | EncodedBytes>();
  const waits: Promise<void>[] = [];
  for (const [name, t] of Object.entries(outputs)) {
    const shaped = p.shape(name, t, mayMove);
    if (shaped instanceof Promise) waits.push(shaped.then((v) => void (out[name] = v)));
    else out[name] = shaped;
  }
  return waits.length === 0 ? out : Promise.all(waits).then(() => out);
}
