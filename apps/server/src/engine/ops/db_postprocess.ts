import type { Tensor } from '@ensemble-studio/core';
import { components } from './components.ts';
import { convexHull, distance, grow, meanInRect, minAreaRect, orderedCorners } from './rect.ts';
import { dim, ensure, input, num, resolveValues } from './check.ts';
import type { OpImpl } from './opTypes.ts';

/**
 * DB post-process, as PaddleOCR's `DBPostProcess` (boxes mode): prob [1,1,H',W'] → boxes FP32 [N,4,2]
 * (four corners x, y in image pixels: top-left, top-right, bottom-right, bottom-left) + scores [N].
 * 1. binary = prob > thresh; 8-connected components ordered by bbox top-left y, x, then raster order;
 *    the first `max_candidates` are considered.
 * 2. each component's smallest rotated rectangle around its pixel centres (`minAreaRect`); dropped
 *    when its shorter side < min_size;
 * 3. score = mean prob over the pixels inside that rectangle (`meanInRect`); dropped when < box_thresh;
 * 4. the rectangle grows by d = area·unclip_ratio/perimeter on every side (what pyclipper's round
 *    offset and a second minAreaRect give for a rectangle); dropped when its shorter side < min_size + 2;
 * 5. its corners (`orderedCorners`) are divided by shape_info's ratios and clipped to [0, src_w] ×
 *    [0, src_h]; a box whose sides are under 4 image pixels is dropped (`filter_tag_det_res`);
 * 6. the boxes are put in reading order (`readingOrder`) by their first corner.
 */
/** Boxes whose tops are less than this many image pixels apart are on one line (PaddleOCR's constant). */
const LINE_TOLERANCE = 10;

/**
 * Reading order, as PaddleOCR's `sorted_boxes`: by top, then left; then each box moves before the
 * boxes just before it while their tops are within LINE_TOLERANCE and it starts left of them, so
 * words of one line read left to right even when a taller word's top is a few pixels higher.
 * @example readingOrder([10, 5], [200, 300]) // [0, 1]: box 1 is higher, but 5 px is one line and box 0 is left of it
 */
export function readingOrder(tops: number[], lefts: number[]): number[] {
  const order = tops.map((_, i) => i).sort((a, b) => tops[a]! - tops[b]! || lefts[a]! - lefts[b]!);
  for (let i = 0; i < order.length - 1; i++) {
    for (let j = i; j >= 0; j--) {
      const [p, q] = [order[j]!, order[j + 1]!];
      if (!(Math.abs(tops[q]! - tops[p]!) < LINE_TOLERANCE && lefts[q]! < lefts[p]!)) break;
      order[j] = q;
      order[j + 1] = p;
    }
  }
  return order;
}

export const dbPostprocess: OpImpl = {
  id: 'db_postprocess',
  run(inputs, values) {
    const v = resolveValues('db_postprocess', values);
    const prob = input('db_postprocess', inputs, 'prob', 'FP32', 4);
    const info = input('db_postprocess', inputs, 'shape_info', 'FP32', 1);
    ensure(
      dim(prob, 0) === 1 && dim(prob, 1) === 1,
      'db_postprocess',
      'prob',
      `must be [1,1,H,W], got [${prob.shape.join(',')}]`,
    );
    ensure(dim(info, 0) === 4, 'db_postprocess', 'shape_info', `must have 4 values, got ${dim(info, 0)}`);
    const [srcH, srcW, ratioH, ratioW] = Array.from(info.data as Float32Array, (x) => x);
    ensure(
      [srcH, srcW, ratioH, ratioW].every((x) => Number.isFinite(x) && (x ?? 0) > 0),
      'db_postprocess',
      'shape_info',
      'must hold positive [src_h, src_w, ratio_h, ratio_w]',
    );
    const [sh, sw, rh, rw] = [srcH ?? 1, srcW ?? 1, ratioH ?? 1, ratioW ?? 1];
    const h = dim(prob, 2);
    const w = dim(prob, 3);
    const found = components(prob.data as Float32Array, h, w, num(v, 'thresh')).slice(0, num(v, 'max_candidates'));
    const boxes: [number, number][][] = [];
    const scores: number[] = [];
    const minSize = num(v, 'min_size');
    const clip = (x: number, hi: number) => Math.min(Math.max(x, 0), hi);
    for (const c of found) {
      const rect = minAreaRect(convexHull(c.ends));
      if (rect === undefined) continue;
      const [rw0, rh0] = [rect.a1 - rect.a0, rect.b1 - rect.b0];
      if (Math.min(rw0, rh0) < minSize) continue;
      const score = meanInRect(prob.data as Float32Array, h, w, rect);
      if (score < num(v, 'box_thresh')) continue;
      const d = (rw0 * rh0 * num(v, 'unclip_ratio')) / (2 * (rw0 + rh0));
      if (Math.min(rw0, rh0) + 2 * d < minSize + 2) continue;
      const box = orderedCorners(grow(rect, d)).map(([x, y]): [number, number] => [clip(x / rw, sw), clip(y / rh, sh)]);
      if (Math.trunc(distance(box[0]!, box[1]!)) <= 3 || Math.trunc(distance(box[0]!, box[3]!)) <= 3) continue;
      boxes.push(box);
      scores.push(score);
    }
    const order = readingOrder(
      boxes.map((b) => b[0]![1]),
      boxes.map((b) => b[0]![0]),
    );
    const out: Record<string, Tensor> = {
      boxes: {
        datatype: 'FP32',
        shape: [scores.length, 4, 2],
        data: Float32Array.from(order.flatMap((i) => boxes[i]!.flat())),
      },
      scores: { datatype: 'FP32', shape: [scores.length], data: Float32Array.from(order, (i) => scores[i]!) },
    };
    return out;
  },
};
