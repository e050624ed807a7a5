import type { DataType, Tensor } from '@ensemble-studio/core';
import { allocData, elementCount, isDataType, keyedRecord, ownValue } from '@ensemble-studio/core';
import type { EncodedBytes } from '../http/classification.ts';
import { badRequest } from '../http/errors.ts';
import { checkElementCount, checkElements, tensorFromBytes, tensorToBytes } from '../http/kserveTensors.ts';
import { plainParameters, type WireParameter } from './params.ts';
import { sharedWindowOf } from './tensorParameters.ts';
import type { SharedInput, SharedWindowRef } from '../http/kserveTensorParameters.ts';

/** `InferTensorContents`: typed lists, one per family of datatypes. */
export interface WireContents {
  bool_contents?: boolean[];
  int_contents?: number[];
  int64_contents?: (string | number)[];
  uint_contents?: number[];
  uint64_contents?: (string | number)[];
  fp32_contents?: number[];
  fp64_contents?: number[];
  bytes_contents?: Uint8Array[];
}

/** One input of a `ModelInferRequest` as proto-loader decodes it (64-bit integers as strings). */
export interface WireInput {
  name: string;
  datatype: string;
  shape: (string | number)[];
  parameters?: Record<string, WireParameter>;
  contents?: WireContents | null;
}

/** A `ModelInferRequest`. */
export interface WireInferRequest {
  model_name: string;
  model_version: string;
  id: string;
  parameters?: Record<string, WireParameter>;
  inputs: WireInput[];
  outputs?: { name: string; parameters?: Record<string, WireParameter> }[];
  raw_input_contents?: Uint8Array[];
}

/** A `ModelInferResponse`: outputs described, their bytes in `raw_output_contents` in the same order. */
export interface WireInferResponse {
  model_name: string;
  model_version: string;
  id: string;
  parameters: Record<string, WireParameter>;
  outputs: { name: string; datatype: string; shape: number[] }[];
  raw_output_contents: Uint8Array[];
}

/** The typed list each datatype travels in (FP16 and BF16 have none: raw bytes only). */
const CONTENTS_FIELD: Partial<Record<DataType, keyof WireContents>> = {
  BOOL: 'bool_contents',
  INT8: 'int_contents',
  INT16: 'int_contents',
  INT32: 'int_contents',
  INT64: 'int64_contents',
  UINT8: 'uint_contents',
  UINT16: 'uint_contents',
  UINT32: 'uint_contents',
  UINT64: 'uint64_contents',
  FP32: 'fp32_contents',
  FP64: 'fp64_contents',
  BYTES: 'bytes_contents',
};

function filledFields(c: WireContents | null | undefined): (keyof WireContents)[] {
  if (!c) return [];
  return (Object.keys(c) as (keyof WireContents)[]).filter(
    (k) => Array.isArray(c[k]) && (c[k] as unknown[]).length > 0,
  );
}

function tensorFromContents(input: WireInput, datatype: DataType, shape: number[], model: string): Tensor {
  const field = CONTENTS_FIELD[datatype];
  if (!field)
    throw badRequest(`input '${input.name}' of model '${model}': ${datatype} data must be sent in raw_input_contents`);
  const others = filledFields(input.contents).filter((f) => f !== field);
  if (others.length > 0)
    throw badRequest(
      `input '${input.name}' of model '${model}' is ${datatype}, so its data belongs in contents.${field}, not contents.${others[0]}`,
    );
  const values = (input.contents?.[field] ?? []) as unknown[];
  const n = elementCount(shape);
  if (values.length !== n)
    throw badRequest(
      `input '${input.name}' of model '${model}' has ${values.length} elements in contents.${field} but shape [${shape.join(',')}] needs ${n}`,
    );
  // 8- and 16-bit integers travel widened to 32 bits: a value that does not fit is refused, not wrapped.
  if (datatype === 'INT8' || datatype === 'INT16' || datatype === 'UINT8' || datatype === 'UINT16')
    checkElements(input.name, datatype, values);
  const data = allocData(datatype, n);
  if (Array.isArray(data)) {
    for (let i = 0; i < n; i++) data[i] = Buffer.from(values[i] as Uint8Array).toString('utf8');
  } else if (data instanceof BigInt64Array || data instanceof BigUint64Array) {
    for (let i = 0; i < n; i++) data[i] = BigInt(values[i] as string);
  } else {
    for (let i = 0; i < n; i++) data[i] = Number(values[i]);
  }
  return { datatype, shape, data };
}

function shapeOf(input: WireInput, model: string): number[] {
  const shape = input.shape.map(Number);
  if (!shape.every((d) => Number.isSafeInteger(d) && d >= 0))
    throw badRequest(
      `input '${input.name}' of model '${model}' has shape [${input.shape.join(',')}]: dimensions must be non-negative integers`,
    );
  return shape;
}

/**
 * A request's tensors: those it carries, those whose data is in shared memory (read on the main thread), and each
 * requested output's window when it is to be written to shared memory.
 */
export interface RequestTensors {
  inputs: Record<string, Tensor>;
  shared: SharedInput[];
  outputWindows: { name: string; shm?: SharedWindowRef }[];
}

/**
 * The tensors of a `ModelInferRequest`: from `raw_input_contents` (one buffer per input not in shared memory, in
 * order) or from each input's typed `contents`, never both; an input in shared memory is returned as its window.
 * @throws ApiError 400 naming the input and the problem (datatype, element count, sizes, limit).
 */
export function requestInputs(req: WireInferRequest, maxTensorElements: number): RequestTensors {
  const model = req.model_name;
  const raw = req.raw_input_contents ?? [];
  // Keyed by the client's names: an input called `__proto__` or `constructor` is an input, not a duplicate.
  const inputs = keyedRecord<Tensor>();
  const shared: SharedInput[] = [];
  const windows = req.inputs.map((input) =>
    sharedWindowOf(input.name, input.parameters, filledFields(input.contents).length > 0, model),
  );
  // With inputs in shared memory, the raw contents go to the others in order, as Triton hands them out (extras unread).
  if (raw.length > 0 && raw.length !== req.inputs.length && windows.every((w) => !w)) {
    throw badRequest(
      `model '${model}': raw_input_contents has ${raw.length} entries but the request has ${req.inputs.length} inputs (one each, in order)`,
    );
  }
  const outputWindows = (req.outputs ?? []).map(({ name, parameters }) => {
    const shm = sharedWindowOf(name, parameters, false, model);
    return shm ? { name, shm } : { name };
  });
  let next = 0;
  req.inputs.forEach((input, i) => {
    if (!isDataType(input.datatype))
      throw badRequest(`input '${input.name}' of model '${model}' has unknown datatype '${input.datatype}'`);
    const shape = shapeOf(input, model);
    checkElementCount(input.name, shape, maxTensorElements);
    if (ownValue(inputs, input.name) || shared.some((s) => s.name === input.name))
      throw badRequest(`input '${input.name}' of model '${model}' appears twice`);
    const window = windows[i];
    if (window) return void shared.push({ name: input.name, datatype: input.datatype, shape, ...window });
    if (raw.length > 0) {
      if (filledFields(input.contents).length > 0)
        throw badRequest(
          `contents field must not be specified when using raw_input_contents for '${input.name}' for model '${model}'`,
        );
      const bytes = raw[next++];
      if (!bytes)
        throw badRequest(`unable to find data for input tensor '${input.name}' for model '${model}' in request.`);
      inputs[input.name] = tensorFromBytes(input.datatype, shape, bytes, input.name);
    } else {
      inputs[input.name] = tensorFromContents(input, input.datatype, shape, model);
    }
  });
  return { inputs, shared, outputWindows };
}

/** The request's parameters as plain values (sequence_id, sequence_start, …). */
export function requestParameters(req: WireInferRequest): Record<string, unknown> {
  return plainParameters(req.parameters);
}

/**
 * A response carrying `outputs` (the requested ones, in the order asked; all of them when none were
 * asked for), every tensor as raw little-endian bytes as Triton's server sends them (a classification made in the
 * body worker arrives as those bytes already; see servedClassification.ts). A requested output the model did not
 * make is left out, as Triton leaves it out (the names were checked against the model before the run).
 */
export function inferResponse(
  base: { model_name: string; model_version: string; id: string },
  outputs: Record<string, Tensor | EncodedBytes>,
  requested: readonly string[],
  shared?: { writesOutput(name: string): boolean },
): WireInferResponse {
  const names = requested.length > 0 ? requested : Object.keys(outputs);
  const res: WireInferResponse = { ...base, parameters: {}, outputs: [], raw_output_contents: [] };
  for (const name of names) {
    const t = ownValue(outputs, name);
    if (!t) continue;
    res.outputs.push({ name, datatype: t.datatype, shape: [...t.shape] });
    // An output written to shared memory keeps its place in raw_output_contents, empty, as Triton sends it.
    res.raw_output_contents.push(shared?.writesOutput(name) ? EMPTY : 'raw' in t ? t.raw : tensorToBytes(t));
  }
  return res;
}

const EMPTY = new Uint8Array(0);
