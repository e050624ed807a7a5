import type { Tensor } from '@ensemble-studio/core';
import { allocData, elementCount } from '@ensemble-studio/core';

/** Elements per batch item: product of all dims after the first. */
function itemSize(shape: readonly number[]): number {
  return elementCount(shape.slice(1));
}

/**
 * Concatenates tensors along dim 0 (they must share dtype and non-batch dims).
 * @example concatBatch([a /* [1,8] *\/, b /* [2,8] *\/]).shape // [3, 8]
 */
export function concatBatch(parts: readonly Tensor[]): Tensor {
  const first = parts[0];
  if (!first) throw new Error('concatBatch needs at least one tensor');
  if (parts.length === 1) return first;
  const rows = parts.reduce((n, t) => n + (t.shape[0] ?? 0), 0);
  const shape = [rows, ...first.shape.slice(1)];
  const data = allocData(first.datatype, elementCount(shape));
  let offset = 0;
  for (const t of parts) {
    if (t.datatype !== first.datatype || !sameItemDims(t.shape, first.shape)) {
      throw new Error(
        `cannot batch [${t.shape.join(',')}] ${t.datatype} with [${first.shape.join(',')}] ${first.datatype}`,
      );
    }
    if (Array.isArray(data)) for (let i = 0; i < t.data.length; i++) data[offset + i] = (t.data as string[])[i]!;
    else (data as Float32Array).set(t.data as Float32Array, offset);
    offset += t.data.length;
  }
  return { datatype: first.datatype, shape, data };
}

/**
 * Splits a tensor along dim 0 into pieces of `rows[i]` rows each: copies, so each piece owns its
 * buffer (and may be transferred), or with `'view'` views into `t`'s buffer (no allocation).
 * @example splitBatch(t /* [3,8] *\/, [1, 2]).map((p) => p.shape) // [[1,8],[2,8]]
 */
export function splitBatch(t: Tensor, rows: readonly number[], mode: 'copy' | 'view' = 'copy'): Tensor[] {
  const total = rows.reduce((a, b) => a + b, 0);
  if (t.shape[0] !== total) throw new Error(`cannot split a batch of ${t.shape[0]} into ${total} rows`);
  const per = itemSize(t.shape);
  const out: Tensor[] = [];
  let offset = 0;
  for (const r of rows) {
    const n = r * per;
    const data = Array.isArray(t.data)
      ? t.data.slice(offset, offset + n)
      : mode === 'view'
        ? (t.data as Float32Array).subarray(offset, offset + n)
        : (t.data as Float32Array).slice(offset, offset + n);
    out.push({ datatype: t.datatype, shape: [r, ...t.shape.slice(1)], data });
    offset += n;
  }
  return out;
}

/** True when both shapes have the same rank and the same sizes after the first (batch) dim. */
export function sameItemDims(a: readonly number[], b: readonly number[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 1; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}
