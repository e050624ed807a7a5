import type { Tensor } from '../tensor/tensor.ts';

/** Decodes IEEE 754 half-precision bits to a number (exact). */
export function fp16ToNumber(bits: number): number {
  const sign = bits & 0x8000 ? -1 : 1;
  const exp = (bits >> 10) & 0x1f;
  const frac = bits & 0x3ff;
  if (exp === 0) return sign * frac * 2 ** -24;
  if (exp === 0x1f) return frac === 0 ? sign * Infinity : NaN;
  return sign * (1 + frac / 1024) * 2 ** (exp - 15);
}

const bf16View = new DataView(new ArrayBuffer(4));

/** Decodes bfloat16 bits (the top half of a float32) to a number (exact). */
export function bf16ToNumber(bits: number): number {
  bf16View.setUint32(0, ((bits & 0xffff) << 16) >>> 0);
  return bf16View.getFloat32(0);
}

/**
 * The elements of a non-BYTES tensor as float64 numbers, in row-major order: BOOL as 0/1, FP16/BF16 decoded,
 * 64-bit integers rounded to the nearest double (as numpy's cast to float64 does).
 * @example tensorNumbers(tensorFromJson('INT64', [2], [1, 2])) // [1, 2]
 */
export function tensorNumbers(t: Tensor): number[] {
  const d = t.data;
  if (Array.isArray(d)) throw new Error('a BYTES tensor has no numeric value');
  if (d instanceof BigInt64Array || d instanceof BigUint64Array) return Array.from(d, (v) => Number(v));
  if (t.datatype === 'FP16') return Array.from(d as Uint16Array, fp16ToNumber);
  if (t.datatype === 'BF16') return Array.from(d as Uint16Array, bf16ToNumber);
  if (t.datatype === 'BOOL') return Array.from(d as Uint8Array, (v) => (v !== 0 ? 1 : 0));
  return Array.from(d as Float64Array);
}
