import { isDataType, tensorFromJson } from '@ensemble-studio/core';
import type { DataType, Tensor } from '@ensemble-studio/core';

type Scalar = number | string | boolean;

/** Flattens a (possibly nested) rectangular array and returns its shape. */
function flatten(value: unknown): { shape: number[]; flat: Scalar[] } {
  if (!Array.isArray(value)) {
    if (typeof value === 'number' || typeof value === 'string' || typeof value === 'boolean')
      return { shape: [], flat: [value] };
    throw new Error(`decodeJsonTensor: unsupported element ${JSON.stringify(value)}`);
  }
  const parts = value.map(flatten);
  const inner = parts[0]?.shape ?? [];
  for (const p of parts) {
    if (p.shape.join(',') !== inner.join(','))
      throw new Error(`decodeJsonTensor: ragged array (rows of shape [${inner.join(',')}] and [${p.shape.join(',')}])`);
  }
  return { shape: [value.length, ...inner], flat: parts.flatMap((p) => p.flat) };
}

/** The dtype a JSON value implies when none is given: strings → BYTES, booleans → BOOL, numbers → FP32. */
function inferType(flat: Scalar[]): DataType {
  if (flat.length > 0 && flat.every((x) => typeof x === 'string')) return 'BYTES';
  if (flat.length > 0 && flat.every((x) => typeof x === 'boolean')) return 'BOOL';
  if (flat.every((x) => typeof x === 'number')) return 'FP32';
  throw new Error('decodeJsonTensor: mixed element types');
}

/**
 * A tensor from JSON: `{ datatype?, shape?, data }` (KServe style; data flat or nested) or a bare
 * nested array. The dtype comes from the JSON, else `fallback`, else is inferred (numbers → FP32).
 * @throws Error `decodeJsonTensor: …` for a ragged array, a count that does not fit the shape, an unknown dtype.
 * @example decodeJsonTensor('[[1, 2], [3, 4]]').shape // [2, 2]
 */
export function decodeJsonTensor(text: string, fallback?: DataType): Tensor {
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch (e) {
    throw new Error(`decodeJsonTensor: invalid JSON: ${(e as Error).message}`, { cause: e });
  }
  const obj =
    typeof doc === 'object' && doc !== null && !Array.isArray(doc) ? (doc as Record<string, unknown>) : undefined;
  if (obj !== undefined && !('data' in obj)) throw new Error('decodeJsonTensor: an object needs a "data" field');
  const { shape: nested, flat } = flatten(obj !== undefined ? obj.data : doc);
  const declared = obj?.datatype;
  if (declared !== undefined && !isDataType(declared))
    throw new Error(`decodeJsonTensor: unknown datatype ${JSON.stringify(declared)}`);
  const datatype = declared ?? fallback ?? inferType(flat);
  const shape = obj?.shape;
  if (shape !== undefined && !(Array.isArray(shape) && shape.every((d) => Number.isInteger(d) && d >= 0))) {
    throw new Error(`decodeJsonTensor: bad shape ${JSON.stringify(shape)}`);
  }
  try {
    return tensorFromJson(datatype, (shape as number[] | undefined) ?? nested, flat);
  } catch (e) {
    throw new Error(`decodeJsonTensor: ${(e as Error).message}`, { cause: e });
  }
}
