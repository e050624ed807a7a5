import type { DataType, InputNode } from '@ensemble-studio/core';
import { elementCount } from '@ensemble-studio/core';
import type { BrowserTensor } from '../../run/runSocket.ts';

/** What the user has provided for one ensemble input. */
export type PreparedInput =
  | { type: 'image'; tensor: BrowserTensor; url: string; width: number; height: number; name: string }
  | { type: 'audio'; samples: Float32Array; name: string }
  | { type: 'tensor'; tensor: BrowserTensor; name: string };

/** The tensor's shape with every variable dim set to `fill` (and the batch dim when batched). */
export function concreteShape(dims: readonly number[], batched: boolean, fill = 4): number[] {
  const d = dims.map((x) => (x < 0 ? fill : x));
  return batched ? [1, ...d] : d;
}

/** Random data for an input: uniform [0,1) floats, small ints, random booleans, short strings. */
export function randomTensor(datatype: DataType, shape: number[]): BrowserTensor {
  const n = elementCount(shape);
  const data: (number | string | boolean)[] = [];
  for (let i = 0; i < n; i++) {
    if (datatype === 'BYTES') data.push(Math.random().toString(36).slice(2, 7));
    else if (datatype === 'BOOL') data.push(Math.random() < 0.5);
    else if (datatype.startsWith('FP') || datatype === 'BF16') data.push(Math.random());
    else data.push(Math.floor(Math.random() * (datatype === 'UINT8' ? 256 : 10)));
  }
  return { datatype, shape, data };
}

/** Parses JSON entry: a flat or nested array, or `{ shape, data }`. */
export function parseJsonTensor(text: string, datatype: DataType, fallbackShape: number[]): BrowserTensor {
  const v = JSON.parse(text) as unknown;
  if (v && typeof v === 'object' && !Array.isArray(v) && 'data' in v) {
    const o = v as { shape?: number[]; data: unknown[] };
    return {
      datatype,
      shape: o.shape ?? [o.data.length],
      data: (o.data as unknown[]).flat(8) as (number | string | boolean)[],
    };
  }
  if (!Array.isArray(v)) throw new Error('enter a JSON array, or { "shape": [...], "data": [...] }');
  const shape: number[] = [];
  for (let cur: unknown = v; Array.isArray(cur); cur = cur[0]) shape.push(cur.length);
  const flat = v.flat(shape.length) as (number | string | boolean)[];
  return {
    datatype,
    shape:
      shape.length === 1 && fallbackShape.length > 1 && elementCount(fallbackShape) === flat.length
        ? fallbackShape
        : shape,
    data: flat,
  };
}

/** True when this input is fed window by window as a sequence (the graph has a stateful model). */
export function isStreamInput(node: InputNode, streaming: boolean): boolean {
  return streaming && node.params.datatype === 'FP32' && node.params.dims.length <= 2;
}
