import { OP_DEFS, checkParam, opDefaults } from '@ensemble-studio/core';
import type { DataType, OpId, Tensor } from '@ensemble-studio/core';

/** Param values of one op run: the op's defaults overlaid with the node's values, all checked. */
export type OpValues = Record<string, number | string | boolean>;

/**
 * Merges `values` over the op's defaults and checks each against its ParamSpec.
 * @throws Error naming the op and param when a value is missing, unknown or out of range.
 * @example resolveValues('topk', { k: 3 }).k === 3
 */
export function resolveValues(op: OpId, values: Readonly<OpValues>): Readonly<OpValues> {
  const known = resolved.get(values);
  if (known && known.op === op && sameValues(values, known.values, known.size)) return known.merged;
  const merged = { ...opDefaults(op), ...values };
  for (const spec of OP_DEFS[op].params) {
    const problem = checkParam(spec, merged[spec.name]);
    if (problem !== undefined) throw new Error(`${op}: param ${problem}`);
  }
  // A node's values object comes back on every run of its graph (a stream's op runs ~31 times a second):
  // merged and checked once while it holds the same values.
  const copy = { ...values };
  resolved.set(values, { op, values: copy, size: Object.keys(copy).length, merged: Object.freeze(merged) });
  return merged;
}

const resolved = new WeakMap<object, { op: OpId; values: OpValues; size: number; merged: Readonly<OpValues> }>();

/** Whether `values` still holds exactly what `seen` (`size` keys) copied from it. */
function sameValues(values: Readonly<OpValues>, seen: OpValues, size: number): boolean {
  let n = 0;
  for (const k in values) {
    if (values[k] !== seen[k] || !Object.hasOwn(seen, k)) return false;
    n++;
  }
  return n === size;
}

/**
 * Reads a numeric param from resolved values (see `resolveValues`).
 * @example num(resolveValues('topk', {}), 'k') === 1
 */
export function num(values: OpValues, name: string): number {
  const v = values[name];
  if (typeof v !== 'number') throw new Error(`param ${name} must be a number`);
  return v;
}

/** For each output plane, the RGB source channel it reads. */
export type ChannelOrder = readonly [number, number, number];

/**
 * The `channels` param (RGB images in; planes out in the model's order).
 * @example channelOrder(resolveValues('crop_resize', {})) // [2, 1, 0] (bgr)
 */
export function channelOrder(values: OpValues): ChannelOrder {
  return values.channels === 'rgb' ? [0, 1, 2] : [2, 1, 0];
}

/**
 * Returns input `port`, checking its dtype and rank.
 * @throws Error like `crop_resize: input 'boxes' must be FP32 of rank 2, got INT64 [3]`.
 * @example const prob = input('db_postprocess', inputs, 'prob', 'FP32', 4);
 */
export function input(
  op: OpId,
  inputs: Record<string, Tensor>,
  port: string,
  datatype: DataType,
  rank: number,
): Tensor {
  const t = inputs[port];
  if (t === undefined) throw new Error(`${op}: missing input '${port}'`);
  if (t.datatype !== datatype || t.shape.length !== rank) {
    throw new Error(
      `${op}: input '${port}' must be ${datatype} of rank ${rank}, got ${t.datatype} [${t.shape.join(',')}]`,
    );
  }
  let n = 1;
  for (const d of t.shape) n *= d;
  if (t.data.length !== n)
    throw new Error(`${op}: input '${port}' has ${t.data.length} elements for shape [${t.shape.join(',')}]`);
  return t;
}

/**
 * Throws `${op}: input '${port}' ${problem}` unless `ok`.
 * @example ensure(n === 4, 'db_postprocess', 'shape_info', 'must have 4 values')
 */
export function ensure(ok: boolean, op: OpId, port: string, problem: string): void {
  if (!ok) throw new Error(`${op}: input '${port}' ${problem}`);
}

/**
 * A dimension of a checked tensor (never undefined: rank was checked).
 * @example dim(image, 0) // H of [H,W,3]
 */
export function dim(t: Tensor, i: number): number {
  return t.shape[i] ?? 0;
}
