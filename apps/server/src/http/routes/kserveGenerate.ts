import type { Request, RequestHandler } from 'express';
import type { Tensor } from '@ensemble-studio/core';
import { badRequest, capMessage, toApiError } from '../errors.ts';
import type { GenerateRequest } from '../kserveBody.ts';
import { generateBytes } from '../generateResponses.ts';
import { OrderedWrites } from '../orderedWrites.ts';
import type { Studio } from '../Studio.ts';
import type { ServedModel } from '../servedModels.ts';
import { rawBody, responseHead, runError, runFor, sequenceOf, servableTarget, type RunResult } from './kserveRun.ts';

/** Inputs and parameters of a generate request (`inputs: [...]` or top-level keys), large bodies parsed off the main thread. */
function parseGenerate(studio: Studio, served: ServedModel, req: Request): Promise<GenerateRequest> {
  const { maxBatchSize } = served.signature;
  const batched = (served.signature.inputs[0]?.shape[0] ?? 0) === -1 && maxBatchSize > 0;
  return studio.bodies.kserve(rawBody(req), {
    kind: 'generate',
    target: { name: served.name, inputs: served.signature.inputs, batched, maxBatchSize },
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
    const head = responseHead(served, id);
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
      // A decoupled graph's response sent final comes while the run still holds its tensors: not the caller's yet.
      result = await runFor(studio, req, res, target, inputs, {
        sequence,
        requestId: id,
        onResponse: (o, final) => respond(o, final && !target.decoupled),
      });
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
      if (sent !== 1) throw badRequest('generate expects model to produce exactly 1 response');
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
