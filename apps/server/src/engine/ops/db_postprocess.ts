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
 *    is divided by shape_info's ratios and clipped to [0, src_w] × [0, src_h].
 */
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
    const boxes: number[] = [];
    const scores: number[] = [];
    for (const c of found) {
      const score = c.sum / c.count;
      const bw = c.maxX - c.minX + 1;
      const bh = c.maxY - c.minY + 1;
      if (score < num(v, 'box_thresh') || Math.min(bw, bh) < num(v, 'min_size')) continue;
      const d = (bw * bh * num(v, 'unclip_ratio')) / (2 * (bw + bh));
      const clip = (x: number, hi: number) => Math.min(Math.max(x, 0), hi);
      boxes.push(
        clip((c.minX - d) / rw, sw),
        clip((c.minY - d) / rh, sh),
        clip((c.maxX + 1 + d) / rw, sw),
        clip((c.maxY + 1 + d) / rh, sh),
      );
      scores.push(score);
    }
    const out: Record<string, Tensor> = {
      boxes: { datatype: 'FP32', shape: [scores.length, 4], data: Float32Array.from(boxes) },
      scores: { datatype: 'FP32', shape: [scores.length], data: Float32Array.from(scores) },
    };
    return out;
  },
};
