import type { Tensor } from '@ensemble-studio/core';
import { components } from './components.ts';
import { dim, ensure, input, num, resolveValues } from './check.ts';
import type { OpImpl } from './registry.ts';

/**
 * DB post-process: prob [1,1,H',W'] → boxes FP32 [N,4] (x1,y1,x2,y2 in image pixels) + scores [N].
 * 1. binary = prob > thresh; 4-connected components ordered by bbox top-left y, x, then raster order;
 *    the first `max_candidates` are considered.
 * 2. score = mean prob over the component's own pixels (not its whole bbox); dropped when
 *    score < box_thresh or the bbox's shorter side (in map pixels, edges inclusive) < min_size.
 * 3. the bbox [minX, maxX+1) × [minY, maxY+1) grows by d = area·unclip_ratio/perimeter on every side,
 *    is divided by shape_info's ratios and clipped to [0, src_w] × [0, src_h];
 * 4. the boxes are put in reading order (`readingOrder`).
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
    ensure(dim(prob, 0) === 1 && dim(prob, 1) === 1, 'db_postprocess', 'prob', `must be [1,1,H,W], got [${prob.shape.join(',')}]`);
    ensure(dim(info, 0) === 4, 'db_postprocess', 'shape_info', `must have 4 values, got ${dim(info, 0)}`);
    const [srcH, srcW, ratioH, ratioW] = Array.from(info.data as Float32Array, (x) => x);
    ensure([srcH, srcW, ratioH, ratioW].every((x) => Number.isFinite(x) && (x ?? 0) > 0),
      'db_postprocess', 'shape_info', 'must hold positive [src_h, src_w, ratio_h, ratio_w]');
    const [sh, sw, rh, rw] = [srcH ?? 1, srcW ?? 1, ratioH ?? 1, ratioW ?? 1];
    const h = dim(prob, 2);
    const w = dim(prob, 3);
    const found = components(prob.data as Float32Array, h, w, num(v, 'thresh')).slice(0, num(v, 'max_candidates'));
    const boxes: number[][] = [];
    const scores: number[] = [];
    for (const c of found) {
      const score = c.sum / c.count;
      const bw = c.maxX - c.minX + 1;
      const bh = c.maxY - c.minY + 1;
      if (score < num(v, 'box_thresh') || Math.min(bw, bh) < num(v, 'min_size')) continue;
      const d = (bw * bh * num(v, 'unclip_ratio')) / (2 * (bw + bh));
      const clip = (x: number, hi: number) => Math.min(Math.max(x, 0), hi);
      boxes.push([
        clip((c.minX - d) / rw, sw),
        clip((c.minY - d) / rh, sh),
        clip((c.maxX + 1 + d) / rw, sw),
        clip((c.maxY + 1 + d) / rh, sh),
      ]);
      scores.push(score);
    }
    const order = readingOrder(boxes.map((b) => b[1]!), boxes.map((b) => b[0]!));
    const out: Record<string, Tensor> = {
      boxes: { datatype: 'FP32', shape: [scores.length, 4], data: Float32Array.from(order.flatMap((i) => boxes[i]!)) },
      scores: { datatype: 'FP32', shape: [scores.length], data: Float32Array.from(order, (i) => scores[i]!) },
    };
    return out;
  },
};
