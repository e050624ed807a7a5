/**
 * What the KServe routes (HTTP `/infer`, `/generate`, `/generate_stream`, and gRPC) share about running a served
 * model for one request: the model it names and how it runs, its sequence flags, the run, and the run's error
 * as Triton reports it.
 */
import type { Request, RequestHandler, Response } from 'express';
import type { Tensor } from '@ensemble-studio/core';
import { MAX_ID_LENGTH } from '@ensemble-studio/core';
import { BodyChunks } from '../bodyChunks.ts';
import { ApiError, badRequest } from '../errors.ts';
import { runTarget, type RunTarget } from '../runTarget.ts';
import type { Studio } from '../Studio.ts';
import { servedModel, type ServedModel } from '../servedModels.ts';

export type RunResult = Awaited<ReturnType<Studio['engine']['run']>>;
type RunRequest = Parameters<Studio['engine']['run']>[0];
type Sequence = { id: number | string; start: boolean; end: boolean };

/** The request's body as the body readers left it (bytes, or chunks of a large one); empty when none was read. */
export function rawBody(req: Request): Uint8Array | BodyChunks {
  return Buffer.isBuffer(req.body) || req.body instanceof BodyChunks ? req.body : Buffer.alloc(0);
}

/** The `Inference-Header-Content-Length` header (the JSON part's length in a binary-extension body). */
export function headerLength(req: Request): string | undefined {
  const h = req.headers['inference-header-content-length'];
  return h === undefined ? undefined : String(h);
}

/** The head every KServe response carries: the model's name, its latest version, and the request's `id` when it had one. */
export function responseHead(served: ServedModel, id: string | undefined): Record<string, unknown> {
  return {
    model_name: served.name,
    model_version: String(served.versions.at(-1) ?? 1),
    ...(id === undefined ? {} : { id }),
  };
}

/**
 * Triton's sequence parameters (`sequence_id`, `sequence_start`, `sequence_end`) → the engine's sequence flags.
 * A stateful model (sequence batching) needs a non-zero or non-empty correlation id on every request, as Triton does.
 */
export function sequenceOf(
  served: ServedModel,
  params: Record<string, unknown>,
  stateful: boolean,
): Sequence | undefined {
  const id = params.sequence_id;
  const start = params.sequence_start === true;
  const end = params.sequence_end === true;
  const none = id === undefined || id === 0 || id === '';
  if (
    !none &&
    !(typeof id === 'number' && Number.isSafeInteger(id) && id > 0) &&
    !(typeof id === 'string' && id.length <= MAX_ID_LENGTH)
  ) {
    // Integers above 2^53 - 1 are rounded when JSON is read: two such ids could name one sequence.
    throw badRequest(
      `Unable to parse 'sequence_id': it must be an integer from 1 to ${Number.MAX_SAFE_INTEGER} (send a larger id as a string) or a string of at most ${MAX_ID_LENGTH} characters`,
    );
  }
  if (none && (start || end || stateful))
    throw badRequest(`inference request to model '${served.name}' must specify a non-zero or non-empty correlation ID`);
  return none ? undefined : { id: id as number | string, start, end };
}

/**
 * The model a request names and how it runs, refused as Triton refuses it: unknown (404), not ready (503), and on
 * `/infer` (`refuseDecoupled`) decoupled.
 * @throws ApiError
 */
export function servableTarget(studio: Studio, req: Request, refuseDecoupled: boolean): [ServedModel, RunTarget] {
  const served = servedModel(studio, req);
  if (!served.ready)
    throw new ApiError(503, 'unavailable', `model '${served.name}' is not ready: ${served.error ?? 'unavailable'}`);
  const target = runTarget(studio, served);
  if (refuseDecoupled && target.decoupled) {
    throw badRequest(
      `HTTP end point doesn't support models with decoupled transaction policy (model '${served.name}'; use /v2/models/${served.name}/generate_stream or gRPC streaming)`,
    );
  }
  return [served, target];
}

/**
 * Refuses, from the request's head, what the model route (`/infer` when `refuseDecoupled`, else `/generate` and
 * `/generate_stream`) would refuse before reading the body: placed before the body readers, so such a request is
 * answered without its body being read, and one sent with `Expect: 100-continue` gets no `100 Continue`. The route
 * checks again once the body is in (the model may have been unloaded meanwhile).
 */
export function refuseUnservable(studio: Studio, refuseDecoupled: boolean): RequestHandler {
  return (req, _res, next) => {
    servableTarget(studio, req, refuseDecoupled);
    next();
  };
}

/**
 * Runs a served model for one HTTP request, with its sequence flags, requested outputs, id and response listener;
 * a client that goes away cancels the run.
 */
export async function runFor(
  studio: Studio,
  req: Request,
  res: Response,
  target: RunTarget,
  inputs: Record<string, Tensor>,
  extra: Pick<RunRequest, 'sequence' | 'requestedOutputs' | 'requestId' | 'onResponse' | 'queueTimeoutUs' | 'priority'>,
): Promise<RunResult> {
  const abort = new AbortController();
  const onClose = () => {
    if (!res.writableFinished) abort.abort();
  };
  res.on('close', onClose);
  let release: (() => void) | undefined;
  try {
    // Over maxConcurrentRuns the run waits its turn, as Triton queues a request (up to maxQueuedRuns).
    release = await studio.waitForRun(abort.signal);
    return await studio.engine.run({
      graph: target.graph,
      inputs,
      signal: abort.signal,
      ...target.run,
      ...extra,
    });
  } finally {
    release?.();
    res.off('close', onClose);
    void req;
  }
}

/**
 * A request's `timeout` (µs, Triton's queue timeout) and `priority` parameters as the engine takes them: each set
 * only when positive (a priority of 0 is the model's default level).
 * @example queueParamsOf({ timeout: 2000, priority: 1 }) // { queueTimeoutUs: 2000, priority: 1 }
 */
export function queueParamsOf(params: Record<string, unknown>): Pick<RunRequest, 'queueTimeoutUs' | 'priority'> {
  const us = Number(params.timeout ?? 0);
  const priority = Number(params.priority ?? 0);
  return {
    ...(Number.isFinite(us) && us > 0 ? { queueTimeoutUs: us } : {}),
    ...(Number.isFinite(priority) && priority > 0 ? { priority } : {}),
  };
}

/**
 * A failed or error-strategy run as Triton reports it (INTERNAL→500, NOT_FOUND→404, UNAVAILABLE→503, else 400).
 * A repository model run on its own (`plainModel`) reports its error without the one-model graph's ensemble prefix.
 */
export function runError(result: RunResult, plainModel?: string): ApiError | undefined {
  if (result.status === 'failed') {
    const code = result.error?.code ?? 'internal';
    const status = /^(model-unavailable|limit|timeout|closed|sequence-lost)$/.test(code)
      ? 503
      : /^(node-failed|instance-crashed|internal)$/.test(code)
        ? 500
        : 400;
    const message = result.error?.message ?? 'inference failed';
    const prefix = plainModel === undefined ? undefined : `in ensemble '${plainModel}', node 'model': `;
    return new ApiError(status, code, prefix && message.startsWith(prefix) ? message.slice(prefix.length) : message);
  }
  if (result.status === 'exited_early' && result.exit?.strategy === 'error') {
    return new ApiError(400, 'exited', result.exit.message ?? `pipeline ended early: ${result.exit.expression}`);
  }
  return undefined;
}
