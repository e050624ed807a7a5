import type { Tensor, TensorData, TensorSummary } from '@ensemble-studio/core';
import { tensorToJson } from '@ensemble-studio/core';

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
export function rememberSummary<T extends Tensor>(t: T, summary: TensorSummary | undefined): T {
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
