import type { RequestHandler, Response } from 'express';
import type { Tensor } from '@ensemble-studio/core';
import { elementCount, ownValue } from '@ensemble-studio/core';
import { decodedBytes } from '../classification.ts';
import { classifyOutput } from '../servedClassification.ts';
import { outputJson, tensorToBytes, tritonJsonText, type InferRequest } from '../kserveTensors.ts';
import { INLINE_JSON_ELEMENTS, type ResponseOutput } from '../responseJobs.ts';
import type { Studio } from '../Studio.ts';
import type { ServedModel } from '../servedModels.ts';
import { openSharedTensors, type SharedTensors } from '../sharedTensors.ts';
import { startHttpTrace, traceRun } from '../tracing.ts';
import { clockPair } from '../../trace/requestTrace.ts';
import {
  headerLength,
  queueParamsOf,
  rawBody,
  responseHead,
  runError,
  runFor,
  sequenceOf,
  servableTarget,
  type RunResult,
} from './kserveRun.ts';

async function sendInferResponse(
  studio: Studio,
  res: Response,
  served: ServedModel,
  req: InferRequest,
  result: RunResult,
  shared: SharedTensors | undefined,
): Promise<void> {
  const wanted: NonNullable<InferRequest['outputs']> =
    req.outputs ?? Object.keys(result.outputs).map((name) => ({ name, binary: req.binaryOutput }));
  const base = responseHead(served, req.id);
  const chunks: Uint8Array[] = [];
  const binaries: Tensor[] = [];
  let jsonElements = 0;
  const outputs: ResponseOutput[] = [];
  for (const { name, binary, classification } of wanted) {
    const found = ownValue(result.outputs, name);
    // An output of the model that the model did not make (checked against the model before the run).
    if (!found) continue;
    if (shared?.writesOutput(name)) {
      // Written to its region; the response says its datatype and shape, with no data (as Triton's).
      await shared.writeOutput(name, found);
      outputs.push({ name, datatype: found.datatype, shape: [...found.shape] });
      continue;
    }
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
 * `POST /v2/models/{m}/infer`: JSON or binary-extension tensors, sequence parameters; decoupled
 * graphs are refused as Triton refuses them.
 */
export function inferHandler(studio: Studio): RequestHandler {
  return async (req, res) => {
    const [served, target] = servableTarget(studio, req, true);
    const trace = startHttpTrace(studio, res, served.name);
    const parsed = await studio.bodies.kserve(rawBody(req), {
      kind: 'infer',
      headerLength: headerLength(req),
      maxTensorElements: studio.limits.maxTensorElements,
      // Only what the checks read: the whole ServedModel would be copied to the body worker.
      model: { name: served.name, signature: served.signature },
    });
    const sequence = sequenceOf(served, parsed.parameters, target.stateful);
    const shared = await openSharedTensors(
      studio.sharedMemory,
      parsed.sharedInputs,
      parsed.outputs,
      parsed.inputs,
      studio.limits.maxBodyBytes,
    );
    try {
      const requestStart = clockPair();
      const result = await runFor(studio, req, res, target, parsed.inputs, {
        sequence,
        requestedOutputs: parsed.outputs?.map((o) => o.name),
        requestId: parsed.id,
        ...queueParamsOf(parsed.parameters),
      });
      if (trace) {
        const { graph, plainModel } = target;
        traceRun(
          studio,
          trace,
          { served, graph, plainModel, requestId: parsed.id, requestStart, inputs: parsed.inputs },
          result,
        );
      }
      const err = runError(result, target.plainModel);
      if (err) throw err;
      await sendInferResponse(studio, res, served, parsed, result, shared);
    } finally {
      shared?.release();
    }
  };
}
