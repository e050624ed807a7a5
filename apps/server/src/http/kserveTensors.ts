import type { DataType, InferBodyInput, Tensor } from '@ensemble-studio/core';
import {
  allocData,
  dtypeSize,
  elementCount,
  elementsProblem,
  isObj,
  keyedRecord,
  readInferBody,
  tensorFromJson,
  tensorToJson,
} from '@ensemble-studio/core';
import { isUtf8 } from 'node:buffer';
import { ApiError, badRequest } from './errors.ts';
import { checkNameCounts, checkOutputNames, type CheckedModel } from './kserveChecks.ts';
import {
  checkInputContent,
  checkOutputParameters,
  checkTypedParameters,
  type SharedInput,
  type SharedWindowRef,
} from './kserveTensorParameters.ts';
import { tensorToBytes } from '../engine/tensors.ts';
import { logRequest } from '../engine/logRequest.ts';

/** A parsed KServe v2 infer request. */
export interface InferRequest {
  id?: string;
  parameters: Record<string, unknown>;
  inputs: Record<string, Tensor>;
  /** Outputs asked for (all when undefined), each with whether it should come back as binary. */
  /** `classification`: the number of classes asked for (Triton's classification extension); absent or 0 for data. */
  /** `shm`: the window of a registered shared memory region the output is to be written to. */
  outputs?: { name: string; binary: boolean; classification?: number; shm?: SharedWindowRef }[];
  binaryOutput: boolean;
  /** Inputs whose data is in shared memory: read into `inputs` on the main thread, which holds the regions. */
  sharedInputs?: SharedInput[];
}

/** Flattens row-major nested arrays (KServe allows nested or flat data). */
export function flattenData(data: unknown, out: unknown[] = []): unknown[] {
  // Iterative: a hostile, deeply nested body must get a 400, not exhaust the stack.
  const stack: { items: unknown[]; i: number }[] = [];
  if (!Array.isArray(data)) return (out.push(data), out);
  stack.push({ items: data, i: 0 });
  while (stack.length > 0) {
    const top = stack[stack.length - 1]!;
    if (top.i >= top.items.length) {
      stack.pop();
      continue;
    }
    const d = top.items[top.i++];
    if (Array.isArray(d)) stack.push({ items: d, i: 0 });
    else out.push(d);
  }
  return out;
}

/**
 * Checks JSON tensor elements against their datatype, for every route that takes JSON tensors:
 * strings for BYTES, booleans (or 0/1) for BOOL, finite numbers otherwise, integers within their
 * type's range (300 is no UINT8) and FP32 values that do not overflow to Infinity.
 * @throws ApiError 400 naming the input, the element's index and the problem.
 * @example checkElements('x', 'UINT8', [1, 2, 300]) // throws: element 2 … outside UINT8's range
 */
export function checkElements(name: string, datatype: DataType, flat: readonly unknown[]): void {
  const problem = elementsProblem(datatype, flat);
  if (problem) throw badRequest(`input '${name}' ${problem}`);
}

/**
 * The element-count limit every route applies to an input tensor.
 * @throws ApiError 400 `limit` naming the input, its count and the limit.
 */
export function checkElementCount(name: string, shape: readonly number[], maxTensorElements: number): number {
  const n = elementCount(shape);
  if (n > maxTensorElements)
    throw new ApiError(
      400,
      'limit',
      `input '${name}' has ${n} elements, over the limit maxTensorElements=${maxTensorElements}`,
    );
  return n;
}

/** Decodes one tensor's raw little-endian bytes (binary tensor extension). */
export function tensorFromBytes(datatype: DataType, shape: number[], bytes: Uint8Array, name = 'input'): Tensor {
  const n = elementCount(shape);
  if (datatype === 'BYTES') {
    const data: string[] = [];
    let off = 0;
    const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    while (off < bytes.byteLength) {
      if (off + 4 > bytes.byteLength)
        throw badRequest(`input '${name}' BYTES element ${data.length} has a truncated length prefix`);
      const len = view.getUint32(off, true);
      if (off + 4 + len > bytes.byteLength)
        throw badRequest(`input '${name}' BYTES element ${data.length} runs past the end of its buffer`);
      const element = Buffer.from(bytes.buffer, bytes.byteOffset + off + 4, len);
      // Elements are kept as text: bytes that are not UTF-8 are refused rather than silently replaced by U+FFFD.
      if (!isUtf8(element))
        throw badRequest(
          `input '${name}' BYTES element ${data.length} is not valid UTF-8 (this server keeps BYTES elements as text)`,
        );
      data.push(element.toString('utf8'));
      off += 4 + len;
    }
    if (data.length !== n)
      throw badRequest(`input '${name}' has ${data.length} BYTES elements but shape [${shape.join(',')}] needs ${n}`);
    return { datatype, shape, data };
  }
  const data = fixedSizeData(datatype, shape, bytes.byteLength, name);
  new Uint8Array(data.buffer).set(bytes);
  return { datatype, shape, data };
}

/**
 * A fresh array for an input of a fixed-size datatype whose data is `byteLength` bytes, once they fit its shape.
 * @throws ApiError 400 naming the input, its bytes and what its shape needs.
 */
export function fixedSizeData(
  datatype: Exclude<DataType, 'BYTES'>,
  shape: number[],
  byteLength: number,
  name: string,
): Exclude<ReturnType<typeof allocData>, string[]> {
  const n = elementCount(shape);
  const size = dtypeSize(datatype);
  if (byteLength !== n * size)
    throw badRequest(
      `input '${name}' has ${byteLength} bytes but shape [${shape.join(',')}] of ${datatype} needs ${n * size}`,
    );
  return allocData(datatype, n) as Exclude<ReturnType<typeof allocData>, string[]>;
}

export { tensorToBytes };

interface ParseOptions {
  maxTensorElements: number;
  binary?: Uint8Array;
  /** The model the request is for: a request naming more inputs or outputs than it has is refused undecoded. */
  model: CheckedModel;
}

function parseInput(raw: InferBodyInput, opts: ParseOptions, cursor: { off: number }): Tensor | SharedInput {
  const { name, datatype, shape } = raw;
  const shared = checkInputContent(raw);
  const n = checkElementCount(name, shape, opts.maxTensorElements);
  if (shared) return { name, datatype, shape, ...shared };
  const size = raw.parameters.binary_data_size;
  if (size !== undefined) {
    if (
      !opts.binary ||
      !Number.isInteger(size) ||
      (size as number) < 0 ||
      cursor.off + (size as number) > opts.binary.byteLength
    ) {
      throw badRequest(`input '${name}' binary_data_size ${String(size)} does not fit the binary body`);
    }
    const bytes = opts.binary.subarray(cursor.off, cursor.off + (size as number));
    cursor.off += size as number;
    return tensorFromBytes(datatype, shape, bytes, name);
  }
  const flat = flattenData(raw.data);
  if (flat.length !== n)
    throw badRequest(`input '${name}' has ${flat.length} elements but shape [${shape.join(',')}] needs ${n}`);
  checkElements(name, datatype, flat);
  return tensorFromJson(datatype, shape, flat as (number | string | boolean)[]);
}

/**
 * Triton's check of a request's parameters: each a string, a number or a boolean (an object, an array or null is
 * refused, so a client cannot hand the server a structure of its choosing to keep and copy).
 * @example checkParameters({ sequence_id: 1, p: {} }) // throws "parameter 'p' has invalid type. …"
 */
export function checkParameters(parameters: Record<string, unknown>): void {
  for (const [key, value] of Object.entries(parameters)) {
    if (typeof value !== 'string' && typeof value !== 'number' && typeof value !== 'boolean')
      throw badRequest(`parameter '${key}' has invalid type. It should be either 'int', 'bool', or 'string'.`);
  }
}

/**
 * Refuses a request `id` that is not a string, as Triton does on `/infer` and `/generate` before it reads anything
 * else (read as absent, a client's id was silently dropped from the response).
 * @throws ApiError 400 with Triton's message.
 * @example checkRequestId({ id: 5 }) // throws "Unable to parse 'id': …"
 */
export function checkRequestId(body: unknown): void {
  if (isObj(body) && Object.hasOwn(body, 'id') && typeof body.id !== 'string')
    throw badRequest("Unable to parse 'id': attempt to access JSON non-string as string");
}

/** `checkRequestId`, and `parameters` that are not an object refused as Triton does. */
function checkTopLevelTypes(body: unknown): void {
  if (!isObj(body)) return;
  checkRequestId(body);
  if (Object.hasOwn(body, 'parameters') && !isObj(body.parameters))
    throw badRequest('failed to get request params.: attempt to access JSON non-object as object');
}

/**
 * Parses a KServe v2 infer request body (JSON, or the binary extension's JSON header + `binary`): its
 * structure by the schema layer, then each input's element count, binary size and data.
 * @throws ApiError 400 naming the problem (unknown datatype, element count, binary sizes, limits).
 * @example parseInferRequest({ inputs: [{ name: 'x', datatype: 'FP32', shape: [2], data: [[1], [2]] }] }, opts)
 */
export function parseInferRequest(body: unknown, opts: ParseOptions): InferRequest {
  checkTopLevelTypes(body);
  const read = readInferBody(body);
  if (!read.ok) throw badRequest(read.error);
  const { id, parameters } = read.body;
  checkParameters(parameters);
  checkTypedParameters(parameters);
  checkNameCounts(
    opts.model,
    read.body.inputs.map((i) => i.name),
    read.body.outputs?.map((o) => o.name),
    id,
  );
  checkOutputNames(
    opts.model,
    read.body.outputs?.map((o) => o.name),
    id,
  );
  const outputWindows = read.body.outputs?.map((o) => checkOutputParameters(o.parameters));
  const cursor = { off: 0 };
  const inputs = keyedRecord<Tensor>();
  const sharedInputs: SharedInput[] = [];
  const seen = new Set<string>();
  for (const raw of read.body.inputs) {
    if (seen.has(raw.name)) throw badRequest(`${logRequest(id)}input '${raw.name}' already exists in request`);
    seen.add(raw.name);
    const t = parseInput(raw, opts, cursor);
    if ('region' in t) sharedInputs.push(t);
    else inputs[raw.name] = t;
  }
  if (opts.binary && cursor.off < opts.binary.byteLength)
    throw badRequest(`unexpected additional input data for model '${opts.model.name}'`);
  const binaryOutput = parameters.binary_data_output === true;
  const outputs = read.body.outputs?.map(({ name, parameters: p }, i) => ({
    name,
    binary: p.binary_data === true || (p.binary_data === undefined && binaryOutput),
    ...classificationOf(p),
    ...(outputWindows?.[i] ? { shm: outputWindows[i] } : {}),
  }));
  return {
    ...(id === undefined ? {} : { id }),
    parameters,
    inputs,
    outputs,
    binaryOutput,
    ...(sharedInputs.length > 0 ? { sharedInputs } : {}),
  };
}

/** An output's `classification` parameter, as Triton reads it (an unsigned integer; 0 asks for the data). */
function classificationOf(p: Record<string, unknown>): { classification?: number } {
  if (!Object.hasOwn(p, 'classification')) return {};
  const k = p.classification;
  if (typeof k !== 'number' || !Number.isSafeInteger(k) || k < 0)
    throw badRequest("Unable to set 'classification': attempt to access JSON non-unsigned-integer as unsigned-integer");
  return k > 0 ? { classification: k } : {};
}

/**
 * JSON text as Triton writes it: NaN, Infinity and -Infinity as bare tokens (RapidJSON's
 * kWriteNanAndInfFlag), where JSON.stringify would write null and lose them.
 * @example tritonJsonText({ data: [1, NaN] }) === '{"data":[1,NaN]}'
 */
export function tritonJsonText(value: unknown): string {
  if (!hasNonFinite(value)) return JSON.stringify(value);
  // A per-response random mark: no string a client sent can be mistaken for it.
  const mark = `nonfinite-${Math.random().toString(36).slice(2)}:`;
  const text = JSON.stringify(value, (_k, v: unknown) =>
    typeof v === 'number' && !Number.isFinite(v) ? `${mark}${String(v)}` : v,
  );
  return text.replace(new RegExp(`"${mark}(NaN|Infinity|-Infinity)"`, 'g'), '$1');
}

function hasNonFinite(v: unknown): boolean {
  if (typeof v === 'number') return !Number.isFinite(v);
  if (Array.isArray(v)) return v.some(hasNonFinite);
  return isObj(v) && Object.values(v).some(hasNonFinite);
}

/** One output in KServe JSON form (`data` flat; BOOL as booleans; BYTES as strings). */
export function outputJson(
  name: string,
  t: Tensor,
): { name: string; datatype: DataType; shape: number[]; data: (number | string | boolean)[] } {
  return { name, datatype: t.datatype, shape: [...t.shape], data: tensorToJson(t) };
}
