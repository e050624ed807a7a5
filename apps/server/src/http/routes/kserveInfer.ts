import type { Request, RequestHandler, Response } from 'express';
import type { Tensor } from '@ensemble-studio/core';
import { MAX_ID_LENGTH, catalogueModel, elementCount, ownValue } from '@ensemble-studio/core';
import { BodyChunks } from '../bodyChunks.ts';
import { decodedBytes } from '../classification.ts';
import { classifyOutput } from '../servedClassification.ts';
import { ApiError, capMessage, toApiError } from '../errors.ts';
import type { GenerateRequest } from '../kserveBody.ts';
import { outputJson, tensorToBytes, tritonJsonText, type InferRequest } from '../kserveTensors.ts';
import { generateBytes } from '../generateResponses.ts';
import { OrderedWrites } from '../orderedWrites.ts';
import { INLINE_JSON_ELEMENTS, type ResponseOutput } from '../responseJobs.ts';
import { runTarget, type RunTarget } from '../runTarget.ts';
import type { Studio } from '../Studio.ts';
import { servedModel, type ServedModel } from '../servedModels.ts';

type RunResult = Awaited<ReturnType<Studio['engine']['run']>>;
type RunRequest = Parameters<Studio['engine']['run']>[0];
type Sequence = { id: number | string; start: boolean; end: boolean };
const bad = (m: string) => new ApiError(400, 'bad-request', m);

function rawBody(req: Request): Uint8Array | BodyChunks {
  return Buffer.isBuffer(req.body) || req.body instanceof BodyChunks ? req.body : Buffer.alloc(0);
}

function headerLength(req: Request): string | undefined {
  const h = req.headers['inference-header-content-length'];
  return h === undefined ? undefined : String(h);
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
    throw bad(
      `Unable to parse 'sequence_id': it must be an integer from 1 to ${Number.MAX_SAFE_INTEGER} (send a larger id as a string) or a string of at most ${MAX_ID_LENGTH} characters`,
    );
  }
  if (none && (start || end || stateful))
    throw bad(`inference request to model '${served.name}' must specify a non-zero or non-empty correlation ID`);
  return none ? undefined : { id: id as number | string, start, end };
}

/** Runs a served model for one HTTP request; a client that goes away cancels the run. */
async function runFor(
  studio: Studio,
  req: Request,
  res: Response,
  target: RunTarget,
  inputs: Record<string, Tensor>,
  sequence: Sequence | undefined,
  onResponse?: RunRequest['onResponse'],
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
      ...(sequence ? { sequence } : {}),
      ...(onResponse ? { onResponse } : {}),
    });
  } finally {
    release?.();
    res.off('close', onClose);
    void req;
  }
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
      : /^(node-failed|instance-crashed|output-missing|internal)$/.test(code)
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

async function sendInferResponse(
  studio: Studio,
  res: Response,
  served: ServedModel,
  req: InferRequest,
  result: RunResult,
): Promise<void> {
  const wanted: NonNullable<InferRequest['outputs']> =
    req.outputs ?? Object.keys(result.outputs).map((name) => ({ name, binary: req.binaryOutput }));
  const base = {
    model_name: served.name,
    model_version: String(served.versions.at(-1) ?? 1),
    ...(req.id === undefined ? {} : { id: req.id }),
  };
  const chunks: Uint8Array[] = [];
  const binaries: Tensor[] = [];
  let jsonElements = 0;
  const outputs: ResponseOutput[] = [];
  for (const { name, binary, classification } of wanted) {
    const found = ownValue(result.outputs, name);
    if (!found) throw bad(`unexpected inference output '${name}' for model '${served.name}'`);
    // An output asked for once can be handed to the worker whole: the run is over.
    const once = wanted.filter((w) => w.name === name).length === 1;
    let t = classification ? await classifyOutput(studio, served, name, found, classification, once) : found;
    const elements = elementCount(t.shape);
    if (!binary) {
      // A few classes are written here with the rest; many, in the worker, from their bytes.
      if ('raw' in t && elements <= INLINE_JSON_ELEMENTS) t = decodedBytes(t);
      jsonElements += elements;
      outputs.push([name, t]);
      continue;
    }
    const bytes = 'raw' in t ? t.raw : tensorToBytes(t);
    chunks.push(bytes);
    if (!('raw' in t)) binaries.push(t);
    outputs.push({
      name,
      datatype: t.datatype,
      shape: [...t.shape],
      parameters: { binary_data_size: bytes.byteLength },
    });
  }
  const header =
    jsonElements > INLINE_JSON_ELEMENTS
      ? await studio.bodies.response('infer', base, outputs, binaries)
      : Buffer.from(
          tritonJsonText({
            ...base,
            outputs: outputs.map((o) => (Array.isArray(o) ? outputJson(o[0], decodedBytes(o[1])) : o)),
          }),
        );
  // res.end, not res.send: send would hash the whole body for an ETag on this thread (SHA-1 of a 60 MB body).
  if (chunks.length === 0) {
    res.setHeader('Content-Type', 'application/json; charset=utf-8');
    return void res.end(header);
  }
  res.setHeader('Inference-Header-Content-Length', String(header.byteLength));
  res.setHeader('Content-Type', 'application/octet-stream');
  res.end(Buffer.concat([header, ...chunks]));
}

/**
 * The model a request names and how it runs, refused as Triton refuses it: unknown (404), not ready (503), and on
 * `/infer` (`refuseDecoupled`) decoupled.
 * @throws ApiError
 */
function servableTarget(studio: Studio, req: Request, refuseDecoupled: boolean): [ServedModel, RunTarget] {
  const served = servedModel(studio, req);
  if (!served.ready)
    throw new ApiError(503, 'unavailable', `model '${served.name}' is not ready: ${served.error ?? 'unavailable'}`);
  const target = runTarget(studio, served);
  if (refuseDecoupled && target.decoupled) {
    throw bad(
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
 * `POST /v2/models/{m}/infer`: JSON or binary-extension tensors, sequence parameters; decoupled
 * graphs are refused as Triton refuses them.
 */
export function inferHandler(studio: Studio): RequestHandler {
  return async (req, res) => {
    const [served, target] = servableTarget(studio, req, true);
    const parsed = await studio.bodies.kserve(rawBody(req), {
      kind: 'infer',
      headerLength: headerLength(req),
      maxTensorElements: studio.limits.maxTensorElements,
      // Only what the checks read: the whole ServedModel would be copied to the body worker.
      model: { name: served.name, signature: served.signature },
    });
    const sequence = sequenceOf(served, parsed.parameters, target.stateful);
    const result = await runFor(studio, req, res, target, parsed.inputs, sequence);
    const err = runError(result, target.plainModel);
    if (err) throw err;
    await sendInferResponse(studio, res, served, parsed, result);
  };
}

function generateHead(served: ServedModel, id: string | undefined): Record<string, unknown> {
  return {
    model_name: served.name,
    model_version: String(served.versions.at(-1) ?? 1),
    ...(id === undefined ? {} : { id }),
  };
}

/** Inputs and parameters of a generate request (`inputs: [...]` or top-level keys), large bodies parsed off the main thread. */
function parseGenerate(studio: Studio, served: ServedModel, req: Request): Promise<GenerateRequest> {
  const batched =
    (served.signature.inputs[0]?.shape[0] ?? 0) === -1 &&
    (served.graph?.maxBatchSize ?? catalogueModel(studio.catalogue, served.name)?.maxBatchSize ?? 0) > 0;
  return studio.bodies.kserve(rawBody(req), {
    kind: 'generate',
    target: { name: served.name, inputs: served.signature.inputs, batched },
    maxTensorElements: studio.limits.maxTensorElements,
  });
}

/**
 * `POST /v2/models/{m}/generate_stream` (SSE, one `data: {json}` per response, each written as the
 * graph produces it) and `/generate` (exactly one JSON response). Errors before the run are JSON
 * with a 4xx/5xx status; errors after the stream started arrive as `data: {"error": …}`.
 */
export function generateStreamHandler(studio: Studio, stream: boolean): RequestHandler {
  return async (req, res) => {
    const [served, target] = servableTarget(studio, req, false);
    const { id, params, inputs } = await parseGenerate(studio, served, req);
    const sequence = sequenceOf(served, params, target.stateful);
    if (stream) {
      res.status(200).setHeader('Content-Type', 'text/event-stream; charset=utf-8');
      res.setHeader('Cache-Control', 'no-cache');
      res.flushHeaders();
    }
    const head = generateHead(served, id);
    const writes = stream
      ? new OrderedWrites<Uint8Array>((bytes) => void (res.destroyed || res.write(bytes)))
      : undefined;
    let only: Uint8Array | Promise<Uint8Array> | undefined;
    let sent = 0;
    // A decoupled graph's last call may carry no outputs: it only says that no more responses follow.
    const respond = (outputs: Record<string, Tensor>, afterRun = false) => {
      if (Object.keys(outputs).length === 0) return;
      // /generate refuses a second response: it is not written.
      if (++sent > 1 && !writes) return;
      const bytes = generateBytes(studio.bodies, writes ? 'event' : 'generate', head, outputs, afterRun);
      if (writes) return writes.add(bytes);
      only = bytes;
      if (bytes instanceof Promise) bytes.catch(() => undefined);
    };
    let result: RunResult;
    try {
      result = await runFor(studio, req, res, target, inputs, sequence, respond);
    } catch (thrown) {
      // Once the stream has started, a refusal (a run limit) can only reach the client as an event.
      if (!writes) throw thrown;
      await writes.settled();
      return void res.end(streamError(toApiError(thrown, studio.limits.maxBodyBytes).message));
    }
    const err = runError(result, target.plainModel);
    // A graph that is not decoupled answers once, also when a condition ended it early.
    if (!err && sent === 0 && !target.decoupled) respond(result.outputs, true);
    if (!writes) {
      if (err) throw err;
      if (sent !== 1) throw bad('generate expects model to produce exactly 1 response');
      const body = await only!;
      // res.end, not res.json: the body is JSON already (and json() would hash it for an ETag on this thread).
      res.setHeader('Content-Type', 'application/json; charset=utf-8');
      return void res.end(body);
    }
    const failure = await writes.settled();
    if (err) return void res.end(streamError(err.message));
    res.end(failure === undefined ? undefined : streamError(toApiError(failure, studio.limits.maxBodyBytes).message));
  };
}

/** A generate_stream error event; the message is capped as every error sent to a client is (it may quote names and shapes it chose). */
function streamError(message: string): string {
  return `data: ${JSON.stringify({ error: capMessage(message) })}\n\n`;
}
