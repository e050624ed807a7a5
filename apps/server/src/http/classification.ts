import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Tensor } from '@ensemble-studio/core';
import { catalogueModel } from '@ensemble-studio/core';
import { ApiError } from './errors.ts';
import type { ServedModel } from './servedModels.ts';
import type { Studio } from './Studio.ts';

// Triton's classification extension: an output requested with `classification: k` comes back as BYTES, the k
// highest elements of each batch entry as "value:index[:label]" strings, labels from the output's label_filename.

/** The most elements one classified output may have (Triton's bound: sorting more is refused). */
const MAX_ELEMENTS = 1_000_000;

/** Data types Triton classifies (FP16, BF16, BOOL and BYTES are refused). */
const CLASSIFIABLE = new Set([
  'UINT8',
  'UINT16',
  'UINT32',
  'UINT64',
  'INT8',
  'INT16',
  'INT32',
  'INT64',
  'FP32',
  'FP64',
]);

/** A value as C++'s std::to_string writes it: integers as they are, floating point with six decimals. */
function valueText(v: number | bigint, float: boolean): string {
  if (typeof v === 'bigint' || !float) return String(v);
  if (Number.isNaN(v)) return 'nan';
  if (!Number.isFinite(v)) return v > 0 ? 'inf' : '-inf';
  return v.toFixed(6);
}

/**
 * `t` as Triton's classification of it: for each batch entry (the first dimension when `batched`, else the whole
 * tensor) the `count` highest elements, highest first (ties by index), as "value:index" or "value:index:label".
 * @throws ApiError 400 for a type Triton cannot classify or more than a million elements per entry.
 * @example classify({ datatype: 'INT32', shape: [4], data: Int32Array.of(1, 5, 10, 4) }, 2, false).data // ['10:2', '5:1']
 */
export function classify(t: Tensor, count: number, batched: boolean, labels?: readonly string[]): Tensor {
  if (!CLASSIFIABLE.has(t.datatype) || Array.isArray(t.data))
    throw new ApiError(
      400,
      'bad-request',
      `class result not available for output due to unsupported type '${t.datatype}'`,
    );
  const data = t.data as ArrayLike<number | bigint>;
  const float = t.datatype === 'FP32' || t.datatype === 'FP64';
  const batch = batched && t.shape.length > 0 ? t.shape[0]! : 0;
  const per = batch > 0 ? data.length / batch : data.length;
  if (per > MAX_ELEMENTS) throw new ApiError(400, 'bad-request', 'classification output tensor too large');
  const k = Math.min(count, per);
  const out: string[] = [];
  for (let b = 0; b < Math.max(1, batch); b++) {
    const base = b * per;
    for (const i of topIndices(data, base, per, k)) {
      const label = labels?.[i];
      out.push(`${valueText(data[base + i]!, float)}:${i}${label === undefined ? '' : `:${label}`}`);
    }
  }
  return { datatype: 'BYTES', shape: batch > 0 ? [batch, k] : [k], data: out };
}

/** `a` ranks before `b`: higher value first, then lower index (a stable order for ties). */
const before = (data: ArrayLike<number | bigint>, base: number, a: number, b: number) => {
  const [x, y] = [data[base + a]!, data[base + b]!];
  return x > y || (x === y && a < b);
};

/**
 * The indices of the `k` highest of `n` elements from `base`, highest first: one pass keeping the best `k` in a heap
 * whose root is the worst kept (O(n log k): a top-5 of a million elements is one pass, not a sort of them all).
 */
function topIndices(data: ArrayLike<number | bigint>, base: number, n: number, k: number): number[] {
  const heap: number[] = [];
  const worse = (a: number, b: number) => before(data, base, b, a);
  const siftDown = (at: number) => {
    for (;;) {
      const [l, r] = [2 * at + 1, 2 * at + 2];
      let w = at;
      if (l < heap.length && worse(heap[l]!, heap[w]!)) w = l;
      if (r < heap.length && worse(heap[r]!, heap[w]!)) w = r;
      if (w === at) return;
      [heap[at], heap[w]] = [heap[w]!, heap[at]!];
      at = w;
    }
  };
  for (let i = 0; i < n; i++) {
    if (heap.length < k) {
      heap.push(i);
      for (let at = heap.length - 1; at > 0;) {
        const up = (at - 1) >> 1;
        if (!worse(heap[at]!, heap[up]!)) break;
        [heap[at], heap[up]] = [heap[up]!, heap[at]!];
        at = up;
      }
    } else if (k > 0 && before(data, base, i, heap[0]!)) {
      heap[0] = i;
      siftDown(0);
    }
  }
  return heap.sort((a, b) => (before(data, base, a, b) ? -1 : 1));
}

const labelFiles = new WeakMap<object, Map<string, string[] | undefined>>();

/**
 * Classifies output `name` of `served` as Triton would (batched when the model or graph batches), with the labels of
 * the output's `label_filename` when the model's config names one (read once per repository).
 */
export function classifyOutput(studio: Studio, served: ServedModel, name: string, t: Tensor, count: number): Tensor {
  const model = served.graph ? undefined : (served.helper?.model ?? catalogueModel(studio.catalogue, served.name));
  const batched = (served.graph ? served.graph.maxBatchSize : (model?.maxBatchSize ?? 0)) > 0;
  const file = model?.config.output?.find((o) => o.name === name)?.label_filename;
  return classify(t, count, batched, file ? labelsOf(studio, served.name, file) : undefined);
}

function labelsOf(studio: Studio, model: string, file: string): string[] | undefined {
  const repo = studio.repository;
  let cache = labelFiles.get(repo);
  if (!cache) labelFiles.set(repo, (cache = new Map()));
  const path = join(repo.dir, model, file);
  if (!cache.has(path)) {
    let labels: string[] | undefined;
    try {
      // One label per line; the newline ending the last line starts no label.
      labels = readFileSync(path, 'utf8')
        .replace(/\r?\n$/, '')
        .split(/\r?\n/);
    } catch {
      labels = undefined;
    }
    cache.set(path, labels);
  }
  return cache.get(path);
}
