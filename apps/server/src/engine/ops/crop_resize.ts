import type { Tensor } from '@ensemble-studio/core';
import { bilinearAt, samplePositions } from './bilinear.ts';
import { channelOrder, dim, ensure, input, num, resolveValues } from './check.ts';
import type { OpImpl } from './opTypes.ts';
import { distance as dist } from './rect.ts';

/** A box's four corners as x, y: top-left, top-right, bottom-right, bottom-left (db_postprocess's order). */
export type Quad = [number, number][];

/** A crop at least this much taller than wide is turned upright (PaddleOCR's `get_rotate_crop_image`). */
const TALL = 1.5;

/**
 * The size a box is warped to before resizing, as PaddleOCR's `get_rotate_crop_image`: the longer of
 * each pair of opposite sides, truncated to whole pixels (at least 1), and whether it is TALL.
 * @example quadSize([[0, 0], [10.7, 0], [10.7, 3], [0, 3]]) // { w: 10, h: 3, tall: false }
 */
export function quadSize(q: Quad): { w: number; h: number; tall: boolean } {
  const w = Math.max(Math.trunc(Math.max(dist(q[0]!, q[1]!), dist(q[3]!, q[2]!))), 1);
  const h = Math.max(Math.trunc(Math.max(dist(q[0]!, q[3]!), dist(q[1]!, q[2]!))), 1);
  return { w, h, tall: h / w >= TALL };
}

/**
 * The width the crops are padded to and each crop's own width, as PaddleOCR's recogniser sizes a batch
 * (`TextRecognizer.resize_norm_img`): pad = floor(height · the widest aspect ratio), at least
 * `minWidth` (PaddleOCR's 320) and at most `maxWidth`; each crop keeps its aspect ratio,
 * ceil(height · w/h), up to the pad. Squashing a long line into a fixed width garbles it.
 * @example cropWidths([{ w: 100, h: 10 }, { w: 20, h: 10 }], 48, 320, 3200) // { pad: 480, widths: [480, 96] }
 */
export function cropWidths(
  sizes: { w: number; h: number }[],
  height: number,
  minWidth: number,
  maxWidth: number,
): { pad: number; widths: number[] } {
  const ratios = sizes.map((r) => r.w / r.h);
  const pad = Math.min(Math.max(minWidth, Math.floor(height * Math.max(0, ...ratios))), maxWidth);
  return { pad, widths: ratios.map((q) => Math.min(Math.max(Math.ceil(height * q), 1), pad)) };
}

/** Where `warpCrop` writes one crop: a batch tensor's data, the crop's first plane, the planes' stride and order. */
interface CropTarget {
  out: Float32Array;
  /** Index of the crop's first plane's first value. */
  base: number;
  /** Values from one row of a plane to the next (the batch's padded width). */
  pad: number;
  /** Values from one plane to the next (height × pad). */
  plane: number;
  /** For each output plane, the image channel it holds. */
  order: readonly number[];
}

/**
 * One crop in one pass, as PaddleOCR's warp (`warpPerspective` of the quad to w×h, border replicated),
 * its turn upright when tall (`rot90`) and the resize to outH × outW (half-pixel) would sample it:
 * each output pixel's position in the w×h crop, (col, row), maps to the image through the quad
 * (bilinear in its corners: exact for the rectangles db_postprocess gives, where the warp is affine)
 * and is read bilinearly there, clamped to the image. Each value (computed in float64) is normalised
 * x/127.5 − 1 and written straight into its plane of `to`: no intermediate image, since a scratch array
 * of a crop's size is fresh memory in a worker that seldom collects garbage (~150 page faults, +2 ms a
 * crop: engine README, "Fresh pages in an op").
 */
function warpCrop(src: Uint8Array, iw: number, ih: number, q: Quad, outH: number, outW: number, to: CropTarget): void {
  const { w, h, tall } = quadSize(q);
  // Turned upright, the crop has w rows and h columns: its (r, c) is the crop's (row c, col w−1−r).
  const ys = samplePositions(outH, tall ? w : h);
  const xs = samplePositions(outW, tall ? h : w);
  // s (along the box's top edge) and t (down its left edge) of each output row and column.
  const sRow = ys.map((v) => (w - 1 - v) / w);
  const sCol = xs.map((v) => v / w);
  const tRow = ys.map((v) => v / h);
  const tCol = xs.map((v) => v / h);
  const x0 = q[0]![0];
  const y0 = q[0]![1];
  const bx = q[1]![0] - x0;
  const by = q[1]![1] - y0;
  const cx = q[3]![0] - x0;
  const cy = q[3]![1] - y0;
  const dx = x0 - q[1]![0] + q[2]![0] - q[3]![0];
  const dy = y0 - q[1]![1] + q[2]![1] - q[3]![1];
  const { out, base, pad, plane } = to;
  // The image channel each output plane takes.
  const [c0, c1, c2] = [to.order[0]!, to.order[1]!, to.order[2]!];
  for (let oy = 0; oy < outH; oy++) {
    const row = base + oy * pad;
    for (let ox = 0; ox < outW; ox++) {
      const s = tall ? sRow[oy]! : sCol[ox]!;
      const t = tall ? tCol[ox]! : tRow[oy]!;
      const x = Math.min(Math.max(x0 + s * bx + t * cx + s * t * dx, 0), iw - 1);
      const y = Math.min(Math.max(y0 + s * by + t * cy + s * t * dy, 0), ih - 1);
      const xi = Math.floor(x);
      const yi = Math.floor(y);
      const fx = x - xi;
      const fy = y - yi;
      const p00 = (yi * iw + xi) * 3;
      const p01 = (yi * iw + Math.min(xi + 1, iw - 1)) * 3;
      const row1 = Math.min(yi + 1, ih - 1) * iw;
      const p10 = (row1 + xi) * 3;
      const p11 = (row1 + Math.min(xi + 1, iw - 1)) * 3;
      const at = row + ox;
      out[at] = bilinearAt(src, p00 + c0, p01 + c0, p10 + c0, p11 + c0, fx, fy) / 127.5 - 1;
      out[at + plane] = bilinearAt(src, p00 + c1, p01 + c1, p10 + c1, p11 + c1, fx, fy) / 127.5 - 1;
      out[at + 2 * plane] = bilinearAt(src, p00 + c2, p01 + c2, p10 + c2, p11 + c2, fx, fy) / 127.5 - 1;
    }
  }
}

/**
 * Warps each box (FP32 [N,4,2], four corners) straight out of a UINT8 [H,W,3] RGB image (`warpCrop`:
 * a tall crop is turned 90° counter-clockwise) at height × its `cropWidths` width, normalised
 * x/127.5 − 1, planes in the `channels` order, right-padded with 0 to the batch's width → FP32 [N,3,height,pad]. No boxes →
 * FP32 [0,3,height,min(min_width, max_width)] (empty).
 */
export const cropResize: OpImpl = {
  id: 'crop_resize',
  run(inputs, values) {
    const v = resolveValues('crop_resize', values);
    const image = input('crop_resize', inputs, 'image', 'UINT8', 3);
    const boxes = input('crop_resize', inputs, 'boxes', 'FP32', 3);
    const [ih, iw] = [dim(image, 0), dim(image, 1)];
    ensure(
      ih > 0 && iw > 0 && dim(image, 2) === 3,
      'crop_resize',
      'image',
      `must be [H,W,3] with H,W ≥ 1, got [${image.shape.join(',')}]`,
    );
    ensure(
      dim(boxes, 1) === 4 && dim(boxes, 2) === 2,
      'crop_resize',
      'boxes',
      `must be [N,4,2] (four corners x, y), got [${boxes.shape.join(',')}]`,
    );
    const b = boxes.data as Float32Array;
    ensure(
      b.every((x) => Number.isFinite(x)),
      'crop_resize',
      'boxes',
      'holds a non-finite coordinate',
    );
    const height = num(v, 'height');
    const quads: Quad[] = Array.from({ length: dim(boxes, 0) }, (_, i) =>
      [0, 1, 2, 3].map((k): [number, number] => [b[i * 8 + k * 2]!, b[i * 8 + k * 2 + 1]!]),
    );
    const sizes = quads.map((q) => {
      const s = quadSize(q);
      return s.tall ? { w: s.h, h: s.w } : s;
    });
    const { pad, widths } = cropWidths(sizes, height, num(v, 'min_width'), num(v, 'max_width'));
    const order = channelOrder(v);
    const out = new Float32Array(quads.length * 3 * height * pad);
    const plane = height * pad;
    quads.forEach((q, i) =>
      warpCrop(image.data as Uint8Array, iw, ih, q, height, widths[i]!, {
        out,
        base: i * 3 * plane,
        pad,
        plane,
        order,
      }),
    );
    const batch: Tensor = { datatype: 'FP32', shape: [quads.length, 3, height, pad], data: out };
    return { crops: batch };
  },
};
