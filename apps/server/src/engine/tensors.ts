import type { DataType, Tensor, TensorData, TensorSummary, WireTensor } from '@ensemble-studio/core';
import { allocData, elementCount, tensorToJson } from '@ensemble-studio/core';
import type { PortableTensor } from './backends/onnx/workerProtocol.ts';

/** onnxruntime's element type name for each protocol data type (BF16 is not supported by ORT). */
export const ORT_TYPES: Partial<Record<DataType, string>> = {
  BOOL: 'bool',
  UINT8: 'uint8',
  UINT16: 'uint16',
  UINT32: 'uint32',
  UINT64: 'uint64',
  INT8: 'int8',
  INT16: 'int16',
  INT32: 'int32',
  INT64: 'int64',
  FP16: 'float16',
  FP32: 'float32',
  FP64: 'float64',
  BYTES: 'string',
};

/** Protocol data type of an onnxruntime element type name. */
export function fromOrtType(t: string): DataType | undefined {
  for (const [k, v] of Object.entries(ORT_TYPES)) if (v === t) return k as DataType;
  return undefined;
}

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

/** A copy of a tensor's data (a fresh buffer this thread owns). */
export function copyData(data: TensorData): TensorData {
  return Array.isArray(data) ? [...data] : (data as Float32Array).slice();
}

/** Whether a typed array spans its whole ArrayBuffer (so the buffer may be transferred alone). */
export function ownsWholeBuffer(data: TensorData): boolean {
  if (Array.isArray(data)) return false;
  const v = data as Float32Array;
  return v.byteOffset === 0 && v.byteLength === v.buffer.byteLength && !(v.buffer instanceof SharedArrayBuffer);
}

/**
 * Full data rides along in progress events only for tensors the browser draws (boxes, scores, texts):
 * converting every intermediate tensor to JSON costs the main thread more than the run itself on
 * small models (a VAD chunk's 576 samples). Final outputs always go out in full (`toWire`).
 */
const SUMMARY_FULL_LIMIT = 512;
/** BYTES tensors (texts) are few and short: up to this many strings go out in full. */
const SUMMARY_FULL_LIMIT_STRINGS = 4096;

/**
 * Summaries computed where a tensor was produced: a worker summarises its outputs before sending
 * them, so stats and thumbnails over large tensors never run on the main thread (event-loop lag).
 */
const SUMMARIES = new WeakMap<Tensor, TensorSummary>();

/** Remembers a summary computed elsewhere (a worker) for `t`; `summarizeTensor(t)` returns it. */
function rememberSummary<T extends Tensor>(t: T, summary: TensorSummary | undefined): T {
  if (summary) SUMMARIES.set(t, restoreSummary(summary));
  return t;
}

/** A summary as a worker sent it (thumbnail as a typed array, see `summarizeAll` in workerChain.ts) made plain JSON again. */
export function restoreSummary(summary: TensorSummary): TensorSummary {
  if (summary.thumbnail && !Array.isArray(summary.thumbnail.data))
    summary.thumbnail.data = Array.from(summary.thumbnail.data as ArrayLike<number>);
  return summary;
}

const PREVIEW = 16;
const STATS_LIMIT = 1 << 18;

/**
 * Stats and a preview of a tensor for events (full data when ≤ 512 elements, ≤ 4096 strings).
 * @example summarizeTensor(t).mean
 */
export function summarizeTensor(t: Tensor): TensorSummary {
  const known = SUMMARIES.get(t);
  if (known) return known;
  const n = t.data.length;
  const summary: TensorSummary = { datatype: t.datatype, shape: [...t.shape], preview: [] };
  if (Array.isArray(t.data)) {
    summary.preview = t.data.slice(0, PREVIEW);
    if (n <= SUMMARY_FULL_LIMIT_STRINGS) summary.data = [...t.data];
    return summary;
  }
  const small = n <= SUMMARY_FULL_LIMIT;
  const json = small
    ? tensorToJson(t)
    : tensorToJson({ ...t, shape: [Math.min(n, PREVIEW)], data: sliceData(t.data, PREVIEW) });
  summary.preview = json.slice(0, PREVIEW);
  if (small) summary.data = json;
  // Stats over huge tensors would stall the event loop (see bench/README.md): those get a preview only.
  if (n > 0 && n <= STATS_LIMIT && t.datatype !== 'BOOL' && t.datatype !== 'FP16' && t.datatype !== 'BF16')
    Object.assign(summary, stats(t.data));
  if (!small && t.datatype === 'FP32' && t.data instanceof Float32Array) {
    const thumb = thumbnail(t.data, t.shape);
    if (thumb) summary.thumbnail = thumb;
  }
  return summary;
}

const THUMB_SIDE = 64;
const THUMB_LIMIT = 1 << 22;

/**
 * A box-averaged picture of at most 64×64 of an FP32 [H,W] tensor, or of the first channel of an
 * [N,C,H,W] one, for the browser's heatmap. One pass over that plane; none above 4M elements.
 * @example thumbnail(new Float32Array(4 * 4), [4, 4])!.shape // [4, 4]
 */
export function thumbnail(
  data: Float32Array,
  shape: readonly number[],
): { shape: [number, number]; data: number[] } | undefined {
  if (data.length === 0 || data.length > THUMB_LIMIT || (shape.length !== 2 && shape.length !== 4)) return undefined;
  const h = shape[shape.length - 2]!;
  const w = shape[shape.length - 1]!;
  if (h <= 0 || w <= 0 || h * w > data.length) return undefined;
  const th = Math.min(h, THUMB_SIDE);
  const tw = Math.min(w, THUMB_SIDE);
  const sum = new Float64Array(th * tw);
  const count = new Uint32Array(th * tw);
  // Column → cell lookup once, so the hot loop has no division (this runs on every large output).
  const col = new Int32Array(w);
  for (let x = 0; x < w; x++) col[x] = Math.floor((x * tw) / w);
  for (let y = 0; y < h; y++) {
    const row = Math.floor((y * th) / h) * tw;
    const base = y * w;
    for (let x = 0; x < w; x++) {
      const v = data[base + x]!;
      if (v - v !== 0) continue; // NaN or ±Infinity
      const k = row + col[x]!;
      sum[k] = sum[k]! + v;
      count[k] = count[k]! + 1;
    }
  }
  const out = new Array<number>(th * tw);
  for (let i = 0; i < out.length; i++) out[i] = count[i] ? Math.fround(sum[i]! / count[i]!) : 0;
  return { shape: [th, tw], data: out };
}

function sliceData(data: TensorData, n: number): TensorData {
  return Array.isArray(data) ? data.slice(0, n) : (data as Float32Array).subarray(0, n);
}

function stats(data: TensorData): { min: number; max: number; mean: number } {
  if (data instanceof BigInt64Array || data instanceof BigUint64Array) return statsOf(Float64Array.from(data, Number));
  return statsOf(data as Float32Array);
}

/** One monomorphic pass (the element type is fixed per call site's array). */
function statsOf(data: ArrayLike<number>): { min: number; max: number; mean: number } {
  let min = Infinity;
  let max = -Infinity;
  let sum = 0;
  for (let i = 0; i < data.length; i++) {
    const v = data[i]!;
    if (v < min) min = v;
    if (v > max) max = v;
    sum += v;
  }
  return { min, max, mean: sum / data.length };
}

/** KServe v2 JSON form of a tensor (BigInt → number, BOOL → boolean). */
export function toWire(t: Tensor): WireTensor {
  return { datatype: t.datatype, shape: [...t.shape], data: tensorToJson(t) };
}

/** Shape text for messages, e.g. `[1,3,-1]`. */
export function shapeText(shape: readonly number[]): string {
  return `[${shape.join(',')}]`;
}

const OWNED = new WeakSet<object>();

/** Marks a tensor's buffer as created by the engine (a worker result or a batch), so it may be transferred. */
export function markOwned<T extends Tensor>(t: T): T {
  if (!Array.isArray(t.data)) OWNED.add(t.data);
  return t;
}

/** Whether the engine created this tensor's buffer (caller inputs are never transferred away). */
export function isOwned(t: Tensor): boolean {
  return !Array.isArray(t.data) && OWNED.has(t.data);
}

/**
 * A worker's result outputs as this thread's tensors: owned (their buffers came by transfer, so they
 * may move on) and with the summaries the worker made for them.
 * @example const outputs = receivedOutputs(poolResult.result)
 */
export function receivedOutputs(r: {
  outputs: Record<string, Tensor>;
  summaries: Record<string, TensorSummary>;
}): Record<string, Tensor> {
  const outputs: Record<string, Tensor> = {};
  for (const [name, t] of Object.entries(r.outputs))
    outputs[name] = rememberSummary(
      markOwned({ datatype: t.datatype, shape: t.shape, data: t.data }),
      r.summaries[name],
    );
  return outputs;
}

/**
 * Tensors for postMessage: each buffer moves when `canTransfer` allows it and the tensor spans it,
 * else goes as a fresh copy; both kinds are listed in `transfer`.
 */
export function portableFeeds(
  feeds: Record<string, Tensor>,
  canTransfer: ((t: Tensor) => boolean) | undefined,
): { portable: Record<string, PortableTensor>; transfer: ArrayBuffer[] } {
  const transfer: ArrayBuffer[] = [];
  const portable: Record<string, PortableTensor> = {};
  for (const [name, t] of Object.entries(feeds)) portable[name] = toPortable(t, canTransfer?.(t) === true, transfer);
  return { portable, transfer };
}

function toPortable(t: Tensor, mayMove: boolean, transfer: ArrayBuffer[]): PortableTensor {
  if (Array.isArray(t.data)) return { datatype: t.datatype, shape: [...t.shape], data: t.data };
  const data =
    mayMove && ownsWholeBuffer(t.data) && !transfer.includes((t.data as Float32Array).buffer as ArrayBuffer)
      ? t.data
      : copyData(t.data);
  transfer.push((data as Float32Array).buffer as ArrayBuffer);
  return { datatype: t.datatype, shape: [...t.shape], data };
}

/** A tensor's raw little-endian bytes (BYTES: 4-byte length + UTF-8 per element). */
export function tensorToBytes(t: Tensor): Uint8Array {
  if (Array.isArray(t.data)) {
    const parts = t.data.map((s) => Buffer.from(s, 'utf8'));
    const out = Buffer.alloc(parts.reduce((a, p) => a + 4 + p.length, 0));
    let off = 0;
    for (const p of parts) {
      out.writeUInt32LE(p.length, off);
      p.copy(out, off + 4);
      off += 4 + p.length;
    }
    return out;
  }
  const d = t.data as Exclude<Tensor['data'], string[]>;
  return new Uint8Array(d.buffer, d.byteOffset, d.byteLength);
}
