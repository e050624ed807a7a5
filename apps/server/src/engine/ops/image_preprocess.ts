import type { Tensor } from '@ensemble-studio/core';
import { axisSamples, bilinearAt } from './bilinear.ts';
import { channelOrder, type ChannelOrder, dim, ensure, input, num, resolveValues } from './check.ts';
import type { OpImpl } from './opTypes.ts';

const MEAN = [0.485, 0.456, 0.406] as const;
const STD = [0.229, 0.224, 0.225] as const;

/**
 * Target size of one side (PaddleOCR det style): `side · scale` rounded half-up to the nearest
 * multiple, at least one multiple, at most the largest multiple ≤ max_side (one multiple wins
 * when max_side < multiple).
 * @example targetSide(100, 1, 32, 960) === 96
 */
export function targetSide(side: number, scale: number, multiple: number, maxSide: number): number {
  const cap = Math.max(Math.floor(maxSide / multiple), 1) * multiple;
  const rounded = Math.max(Math.floor((side * scale) / multiple + 0.5), 1) * multiple;
  return Math.min(rounded, cap);
}

/** Normalises one resized channel value (float64, 0..255) as the `normalize` param says. */
function normalise(mode: string, v: number, c: number): number {
  if (mode === 'imagenet') return (v / 255 - (MEAN[c] ?? 0)) / (STD[c] ?? 1);
  if (mode === 'half') return v / 127.5 - 1;
  return v / 255;
}

/**
 * The bilinear resize (half-pixel, `axisSamples`) of a UINT8 HWC RGB image to outH × outW, each value computed
 * in float64 as v = (p00·(1−fx) + p01·fx)·(1−fy) + (p10·(1−fx) + p11·fx)·fy, normalised and written straight
 * into its FP32 CHW plane (plane c from source channel `order[c]`). One pass and no intermediate image: a
 * float64 copy of the resized image (12.5 MB for 960 × 544) is fresh memory in a worker that seldom collects
 * garbage (98 page faults a call on average in det's worker, 17.9 ms against 13.1 in one pass: engine README,
 * "Fresh pages in an op").
 */
function resizeNormalised(
  src: Uint8Array,
  w: number,
  h: number,
  outH: number,
  outW: number,
  mode: string,
  order: ChannelOrder,
): Float32Array {
  const plane = outH * outW;
  const out = new Float32Array(3 * plane);
  const ys = axisSamples(outH, h);
  const xs = axisSamples(outW, w);
  const [f0, f1, f2] = order;
  for (let oy = 0; oy < outH; oy++) {
    const fy = ys.f[oy]!;
    const r0 = ys.i0[oy]! * w;
    const r1 = ys.i1[oy]! * w;
    const row = oy * outW;
    for (let ox = 0; ox < outW; ox++) {
      const fx = xs.f[ox]!;
      const p00 = (r0 + xs.i0[ox]!) * 3;
      const p01 = (r0 + xs.i1[ox]!) * 3;
      const p10 = (r1 + xs.i0[ox]!) * 3;
      const p11 = (r1 + xs.i1[ox]!) * 3;
      const at = row + ox;
      out[at] = normalise(mode, bilinearAt(src, p00 + f0, p01 + f0, p10 + f0, p11 + f0, fx, fy), 0);
      out[plane + at] = normalise(mode, bilinearAt(src, p00 + f1, p01 + f1, p10 + f1, p11 + f1, fx, fy), 1);
      out[2 * plane + at] = normalise(mode, bilinearAt(src, p00 + f2, p01 + f2, p10 + f2, p11 + f2, fx, fy), 2);
    }
  }
  return out;
}

/**
 * An image already at its target size: a bilinear resize to the same size is the identity (every
 * sample falls on a pixel centre), so each byte maps through a 256-entry table per channel, the same
 * numbers `resizeNormalised` would compute, several times faster: fast enough to run inline (timings in
 * bench/README.md).
 */
function normaliseBytes(src: Uint8Array, mode: string, order: ChannelOrder): Float32Array {
  const plane = src.length / 3;
  const out = new Float32Array(src.length);
  // Plain arrays, not typed ones: in a thread that has detached a buffer (every model worker), each typed-array read
  // is checked for detachment, and these are read three times a pixel (engine README, "Tables in plain arrays, and
  // eight reads a turn").
  const [t0, t1, t2] = [0, 1, 2].map((c) =>
    Array.from({ length: 256 }, (_, b) => Math.fround(normalise(mode, b, c))),
  ) as [number[], number[], number[]];
  const [f0, f1, f2] = order;
  const q = plane;
  const r = 2 * plane;
  // One pass over the pixels in memory order (three planes written together): ~2× faster than a pass per channel.
  // Four pixels a turn, so that a turn's 12 reads and 12 writes share their detachment checks (0.58 → 0.40 ms in a
  // thread that has detached a buffer, 0.45 → 0.34 in one that has not, on the bench's 640 × 160 image).
  let p = 0;
  let i = 0;
  for (; p + 3 < plane; p += 4, i += 12) {
    const a0 = src[i + f0]!;
    const a1 = src[i + f1]!;
    const a2 = src[i + f2]!;
    const b0 = src[i + 3 + f0]!;
    const b1 = src[i + 3 + f1]!;
    const b2 = src[i + 3 + f2]!;
    const c0 = src[i + 6 + f0]!;
    const c1 = src[i + 6 + f1]!;
    const c2 = src[i + 6 + f2]!;
    const d0 = src[i + 9 + f0]!;
    const d1 = src[i + 9 + f1]!;
    const d2 = src[i + 9 + f2]!;
    out[p] = t0[a0]!;
    out[p + 1] = t0[b0]!;
    out[p + 2] = t0[c0]!;
    out[p + 3] = t0[d0]!;
    out[q + p] = t1[a1]!;
    out[q + p + 1] = t1[b1]!;
    out[q + p + 2] = t1[c1]!;
    out[q + p + 3] = t1[d1]!;
    out[r + p] = t2[a2]!;
    out[r + p + 1] = t2[b2]!;
    out[r + p + 2] = t2[c2]!;
    out[r + p + 3] = t2[d2]!;
  }
  for (; p < plane; p++, i += 3) {
    out[p] = t0[src[i + f0]!]!;
    out[q + p] = t1[src[i + f1]!]!;
    out[r + p] = t2[src[i + f2]!]!;
  }
  return out;
}

/**
 * UINT8 [H,W,3] (RGB) → FP32 [1,3,H',W'] (bilinear, half-pixel) in the `channels` order, normalised
 * per plane (imagenet: plane 0 takes the first mean, whichever channel it holds, as PaddleOCR does)
 * + shape_info [H, W, H'/H, W'/W].
 * scale = min(1, max_side / max(H, W)); each side via `targetSide`.
 */
export const imagePreprocess: OpImpl = {
  id: 'image_preprocess',
  run(inputs, values) {
    const v = resolveValues('image_preprocess', values);
    const image = input('image_preprocess', inputs, 'image', 'UINT8', 3);
    const [h, w] = [dim(image, 0), dim(image, 1)];
    ensure(
      h > 0 && w > 0 && dim(image, 2) === 3,
      'image_preprocess',
      'image',
      `must be [H,W,3] with H,W ≥ 1, got [${image.shape.join(',')}]`,
    );
    const maxSide = num(v, 'max_side');
    const multiple = num(v, 'multiple');
    const scale = Math.min(1, maxSide / Math.max(h, w));
    const outH = targetSide(h, scale, multiple, maxSide);
    const outW = targetSide(w, scale, multiple, maxSide);
    const mode = String(v.normalize);
    const order = channelOrder(v);
    const out =
      outH === h && outW === w
        ? normaliseBytes(image.data as Uint8Array, mode, order)
        : resizeNormalised(image.data as Uint8Array, w, h, outH, outW, mode, order);
    const tensor: Tensor = { datatype: 'FP32', shape: [1, 3, outH, outW], data: out };
    const shapeInfo: Tensor = { datatype: 'FP32', shape: [4], data: Float32Array.of(h, w, outH / h, outW / w) };
    return { tensor, shape_info: shapeInfo };
  },
};
