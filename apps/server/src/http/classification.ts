import { readFileSync, statSync } from 'node:fs';
import { DATA_TYPES, type Tensor } from '@ensemble-studio/core';
import { tensorToBytes } from '../engine/tensors.ts';
import { ownedBytes } from './bodyChunks.ts';
import { ApiError, badRequest } from './errors.ts';
import { tensorFromBytes } from './kserveTensors.ts';

// Triton's classification extension: an output requested with `classification: k` comes back as BYTES, the k
// highest elements of each batch entry as "value:index[:label]" strings, labels from the output's label_filename.

/** The most elements one classified output may have (Triton's bound: sorting more is refused). */
const MAX_ELEMENTS = 1_000_000;

/** Data types Triton classifies: every type but FP16, BF16, BOOL and BYTES. */
const CLASSIFIABLE: ReadonlySet<string> = new Set(
  DATA_TYPES.filter((t) => t !== 'FP16' && t !== 'BF16' && t !== 'BOOL' && t !== 'BYTES'),
);

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
  if (per > MAX_ELEMENTS) throw badRequest('classification output tensor too large');
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

/** A BYTES tensor as its wire bytes (a 4-byte length and the UTF-8 of each element), as the body worker returns one. */
export interface EncodedBytes {
  datatype: 'BYTES';
  shape: number[];
  raw: Uint8Array;
}

/** A classification made in the body worker: the tensor, and the labels as the file to read them from. */
export interface ClassifyJob {
  kind: 'classify';
  tensor: Tensor;
  count: number;
  batched: boolean;
  labelFile: string | undefined;
}

/**
 * The job's classification as wire bytes (in the worker: its strings never cross to the main thread, where HTTP's
 * binary data and gRPC's raw contents send the bytes as they are).
 * @example classifiedBytes({ kind: 'classify', tensor: t, count: 5, batched: false, labelFile: undefined }).raw
 */
export function classifiedBytes(job: ClassifyJob): EncodedBytes {
  const t = classify(job.tensor, job.count, job.batched, job.labelFile ? labelsIn(job.labelFile) : undefined);
  return { datatype: 'BYTES', shape: [...t.shape], raw: ownedBytes(tensorToBytes(t)) };
}

/**
 * `t` with its strings, decoded from wire bytes when it is an EncodedBytes.
 * @example decodedBytes({ datatype: 'BYTES', shape: [1], raw }).data // ['0.900000:3']
 */
export function decodedBytes(t: Tensor | EncodedBytes): Tensor {
  return 'raw' in t ? tensorFromBytes('BYTES', t.shape, t.raw, 'classification') : t;
}

const labelFiles = new Map<string, { mtimeMs: number; size: number; labels: string[] | undefined }>();

/**
 * The labels of a `label_filename`, one per line (the newline ending the last line starts no label); read again only
 * when the file changes, and undefined when it cannot be read.
 * @example labelsIn('/repo/head/labels.txt')?.[3] // 'cat'
 */
export function labelsIn(path: string): string[] | undefined {
  let stat: { mtimeMs: number; size: number };
  try {
    stat = statSync(path);
  } catch {
    return undefined;
  }
  const known = labelFiles.get(path);
  if (known && known.mtimeMs === stat.mtimeMs && known.size === stat.size) return known.labels;
  let labels: string[] | undefined;
  try {
    labels = readFileSync(path, 'utf8')
      .replace(/\r?\n$/, '')
      .split(/\r?\n/);
  } catch {
    labels = undefined;
  }
  labelFiles.set(path, { mtimeMs: stat.mtimeMs, size: stat.size, labels });
  return labels;
}
