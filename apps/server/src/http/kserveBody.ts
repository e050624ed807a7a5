import { isUtf8 } from 'node:buffer';
import type { Tensor } from '@ensemble-studio/core';
import { elementCount, isObj, keyedRecord, tensorFromJson } from '@ensemble-studio/core';
import { badRequest } from './errors.ts';
import type { GraphSignature } from './graphSignature.ts';
import { checkInputs, withShared, type CheckedModel } from './kserveChecks.ts';
import {
  checkElementCount,
  checkElements,
  checkParameters,
  checkRequestId,
  flattenData,
  parseInferRequest,
  type InferRequest,
} from './kserveTensors.ts';

// Pure parsing of KServe request bodies (no Express, no Studio): it runs on the main thread for
// small bodies and in the body worker for large ones, with the same results and the same errors.

/** What parsing a generate body needs to know about the model it is for. */
export interface GenerateTarget {
  name: string;
  inputs: GraphSignature['inputs'];
  /** The model batches (first dim -1 and max_batch_size > 0): a top-level value may omit the batch dim. */
  batched: boolean;
  /** The config's max_batch_size, for Triton's batch checks. */
  maxBatchSize: number;
}

/** A generate request's id, parameters and input tensors. */
export interface GenerateRequest {
  id?: string;
  params: Record<string, unknown>;
  inputs: Record<string, Tensor>;
}

/**
 * The JSON part of a raw body (all of it, or the header of a binary-extension request) and the binary rest.
 * @param headerLength the `Inference-Header-Content-Length` header, when the request has one.
 * @throws ApiError 400 when the header does not fit the body or the JSON does not parse.
 */
function splitRawBody(buf: Uint8Array, headerLength: string | undefined): { json: unknown; binary?: Uint8Array } {
  const n = headerLength === undefined ? buf.byteLength : Number(headerLength);
  if (!Number.isInteger(n) || n < 0 || n > buf.byteLength)
    throw badRequest(
      `Inference-Header-Content-Length ${String(headerLength).slice(0, 32)} does not fit the body (${buf.byteLength} bytes)`,
    );
  const text = Buffer.from(buf.buffer, buf.byteOffset, n);
  // Decoding would replace each byte that is not UTF-8 by U+FFFD without a word (in an id, a name, a BYTES element
  // written in the JSON). Triton's reader keeps such bytes as they are; this server keeps strings as text, so it
  // refuses them, as it refuses a binary BYTES element that is not UTF-8.
  if (!isUtf8(text))
    throw badRequest(
      'failed to parse the request JSON buffer: it is not valid UTF-8 (this server keeps strings as text)',
    );
  let json: unknown;
  try {
    json = JSON.parse(text.toString('utf8'));
  } catch (err) {
    throw badRequest(`failed to parse the request JSON buffer: ${(err as Error).message.slice(0, 200)}`);
  }
  return headerLength === undefined ? { json } : { json, binary: buf.subarray(n) };
}

/**
 * An infer request from its raw body, checked against the model it is for as Triton checks it.
 * @example parseInferBody(Buffer.from('{"inputs":[]}'), undefined, 1e6, served).inputs
 */
export function parseInferBody(
  buf: Uint8Array,
  headerLength: string | undefined,
  maxTensorElements: number,
  model: CheckedModel,
): InferRequest {
  const { json, binary } = splitRawBody(buf, headerLength);
  const request = parseInferRequest(json, { maxTensorElements, model, ...(binary ? { binary } : {}) });
  checkInputs(model, withShared(request.inputs, request.sharedInputs), request.id);
  return request;
}

/** Nested shape of a JSON value: `[[1,2],[3,4]]` → [2,2]; a scalar → [1]. */
function nestedShape(v: unknown): number[] {
  if (!Array.isArray(v)) return [1];
  const shape: number[] = [];
  let cur: unknown = v;
  while (Array.isArray(cur)) {
    shape.push(cur.length);
    cur = cur[0];
  }
  return shape;
}

/**
 * Generate-extension inputs: top-level keys named like the model's inputs (as Triton's generate extension takes them), under the
 * same element-count limit and element checks as `/infer`.
 */
function generateInputs(
  target: GenerateTarget,
  body: Record<string, unknown>,
  maxTensorElements: number,
): Record<string, Tensor> {
  const inputs = keyedRecord<Tensor>();
  for (const spec of target.inputs) {
    if (!Object.hasOwn(body, spec.name)) continue;
    const value = body[spec.name];
    let shape = nestedShape(value);
    if (target.batched && shape.length === spec.shape.length - 1) shape = [1, ...shape];
    checkElementCount(spec.name, shape, maxTensorElements);
    const flat = flattenData(value);
    if (flat.length !== elementCount(shape))
      throw badRequest(
        `input '${spec.name}' is a ragged array: ${flat.length} elements for shape [${shape.join(',')}]`,
      );
    checkElements(spec.name, spec.datatype, flat);
    try {
      inputs[spec.name] = tensorFromJson(spec.datatype, shape, flat as (number | string | boolean)[]);
    } catch (err) {
      throw badRequest(`input '${spec.name}': ${(err as Error).message}`);
    }
  }
  return inputs;
}

/**
 * A generate request from its raw body: `inputs: [...]` (infer form) or top-level keys, checked against the model
 * as an infer request is.
 * @example parseGenerateBody(Buffer.from('{"x":[1,2]}'), target, 1e6).inputs.x
 */
export function parseGenerateBody(buf: Uint8Array, target: GenerateTarget, maxTensorElements: number): GenerateRequest {
  const { json } = splitRawBody(buf, undefined);
  if (!isObj(json)) throw badRequest('generate request must be a JSON object');
  const body = json;
  checkRequestId(body);
  const id = typeof body.id === 'string' ? body.id : undefined;
  const model = { name: target.name, signature: target };
  let params: Record<string, unknown>;
  let inputs: Record<string, Tensor>;
  if (Array.isArray(body.inputs)) {
    const p = parseInferRequest(body, { maxTensorElements, model });
    params = p.parameters;
    inputs = p.inputs;
  } else {
    params = isObj(body.parameters) ? body.parameters : {};
    checkParameters(params);
    inputs = generateInputs(target, body, maxTensorElements);
  }
  // Checked here, in the body worker for a large body: a refused tensor never reaches the main thread.
  checkInputs(model, inputs, id);
  return { ...(id === undefined ? {} : { id }), params, inputs };
}
