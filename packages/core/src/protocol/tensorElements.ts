import type { DataType } from '../tensor/dtype.ts';

/** The JSON element values a scalar of each data type may carry. */
export type JsonElement = number | string | boolean;

const INTEGER_RANGES: Partial<Record<DataType, readonly [number, number]>> = {
  UINT8: [0, 0xff],
  UINT16: [0, 0xffff],
  UINT32: [0, 0xffffffff],
  UINT64: [0, 2 ** 64 - 1],
  INT8: [-0x80, 0x7f],
  INT16: [-0x8000, 0x7fff],
  INT32: [-0x80000000, 0x7fffffff],
  INT64: [-(2 ** 63), 2 ** 63 - 1],
};
const FP32_MAX = 3.4028234663852886e38;

/**
 * Why a JSON element cannot be a value of `datatype` (undefined when it can): strings for BYTES,
 * booleans (or 0/1) for BOOL, finite numbers otherwise, integers within their type's range (300 is
 * no UINT8) and FP32 values that do not overflow to Infinity.
 * @example elementProblem('UINT8', 300) // "outside UINT8's range 0..255"
 */
function elementProblem(datatype: DataType, x: unknown): string | undefined {
  if (datatype === 'BYTES') return typeof x === 'string' ? undefined : 'not a string';
  if (datatype === 'BOOL') return typeof x === 'boolean' || x === 0 || x === 1 ? undefined : 'not a boolean';
  if (typeof x !== 'number' || !Number.isFinite(x)) return 'not a finite number';
  const range = INTEGER_RANGES[datatype];
  if (range) {
    if (!Number.isInteger(x)) return 'not an integer';
    return x < range[0] || x > range[1] ? `outside ${datatype}'s range ${range[0]}..${range[1]}` : undefined;
  }
  return datatype === 'FP32' && Math.abs(x) > FP32_MAX ? "outside FP32's range (it would become Infinity)" : undefined;
}

/**
 * The first element of `flat` that is not a valid `datatype` value, as a message naming its index
 * and the problem (undefined when all are valid).
 * @example elementsProblem('UINT8', [1, 2, 300]) // "element 2 is not a valid UINT8 value: outside UINT8's range 0..255"
 */
export function elementsProblem(datatype: DataType, flat: readonly unknown[]): string | undefined {
  for (let i = 0; i < flat.length; i++) {
    const problem = elementProblem(datatype, flat[i]);
    if (problem) return `element ${i} is not a valid ${datatype} value: ${problem}`;
  }
  return undefined;
}
