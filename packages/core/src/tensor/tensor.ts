import type { DataType } from './dtype.ts';

/** Typed array backing each data type. BYTES tensors hold strings; BF16/FP16 hold raw Uint16 bits. */
export type TensorData =
  | Float32Array
  | Float64Array
  | Int8Array
  | Int16Array
  | Int32Array
  | BigInt64Array
  | Uint8Array
  | Uint16Array
  | Uint32Array
  | BigUint64Array
  | string[];

/**
 * What is known statically about the tensor at a port, as the validator, the compiler and the condition
 * checker infer it: `null` = unknown (nothing typed feeds it yet). `shape` is the full shape, -1 = variable.
 */
export interface PortType {
  datatype: DataType | null;
  shape: number[] | null;
}

/** An immutable tensor value shared by the engine, protocol and ops. Shape is the full shape. */
export interface Tensor {
  readonly datatype: DataType;
  readonly shape: readonly number[];
  readonly data: TensorData;
}

export function elementCount(shape: readonly number[]): number {
  let n = 1;
  for (const d of shape) n *= d;
  return n;
}

/** Allocates a zero tensor of a fixed shape. */
export function zeros(datatype: DataType, shape: readonly number[]): Tensor {
  const n = elementCount(shape);
  return { datatype, shape: [...shape], data: allocData(datatype, n) };
}

export function allocData(datatype: DataType, n: number): TensorData {
  switch (datatype) {
    case 'BOOL':
    case 'UINT8':
      return new Uint8Array(n);
    case 'INT8':
      return new Int8Array(n);
    case 'INT16':
      return new Int16Array(n);
    case 'UINT16':
    case 'FP16':
    case 'BF16':
      return new Uint16Array(n);
    case 'INT32':
      return new Int32Array(n);
    case 'UINT32':
      return new Uint32Array(n);
    case 'INT64':
      return new BigInt64Array(n);
    case 'UINT64':
      return new BigUint64Array(n);
    case 'FP32':
      return new Float32Array(n);
    case 'FP64':
      return new Float64Array(n);
    case 'BYTES':
      return new Array<string>(n).fill('');
  }
}

/** Builds a tensor from plain numbers/strings (KServe JSON form), checking the element count. */
export function tensorFromJson(
  datatype: DataType,
  shape: readonly number[],
  flat: readonly (number | string | boolean)[],
): Tensor {
  const n = elementCount(shape);
  if (flat.length !== n) {
    throw new Error(`tensor has ${flat.length} elements but shape [${shape.join(',')}] needs ${n}`);
  }
  const data = allocData(datatype, n);
  if (Array.isArray(data)) {
    for (let i = 0; i < n; i++) data[i] = String(flat[i]);
  } else if (data instanceof BigInt64Array || data instanceof BigUint64Array) {
    for (let i = 0; i < n; i++) data[i] = BigInt(Math.trunc(Number(flat[i])));
  } else {
    for (let i = 0; i < n; i++) (data as Float32Array)[i] = Number(flat[i]);
  }
  return { datatype, shape: [...shape], data };
}

/** Flattens a tensor to JSON-safe values (BigInt → number, FP16 bits as stored). */
export function tensorToJson(t: Tensor): (number | string | boolean)[] {
  if (Array.isArray(t.data)) return [...t.data];
  if (t.data instanceof BigInt64Array || t.data instanceof BigUint64Array) return Array.from(t.data, (v) => Number(v));
  if (t.datatype === 'BOOL') return Array.from(t.data as Uint8Array, (v) => v !== 0);
  return Array.from(t.data as Float32Array);
}
