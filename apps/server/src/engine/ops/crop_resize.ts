import type { Tensor } from '@ensemble-studio/core';
import { resizeBilinear } from './bilinear.ts';
import type { Region } from './bilinear.ts';
import { dim, ensure, input, num, resolveValues } from './check.ts';
import type { OpImpl } from './registry.ts';

/**
 * The integer pixel region of a box (x1,y1,x2,y2 floats) inside a w×h image: floor the top-left,
 * ceil the bottom-right, clamp to the image, at least 1×1.
 * @example boxRegion(0.5, 1.2, 3.1, 4, 10, 10) // { x: 0, y: 1, w: 4, h: 3 }
 */
export function boxRegion(x1: number, y1: number, x2: number, y2: number, w: number, h: number): Region {
  const x = Math.min(Math.max(Math.floor(x1), 0), w - 1);
  const y = Math.min(Math.max(Math.floor(y1), 0), h - 1);
  const xe = Math.min(Math.max(Math.ceil(x2), x + 1), w);
  const ye = Math.min(Math.max(Math.ceil(y2), y + 1), h);
  return { x, y, w: xe - x, h: ye - y };
}

/**
 * Crops each box from a UINT8 [H,W,3] image and resizes it (bilinear, half-pixel) to
 * height × min(max(ceil(height·w/h), 1), max_width), normalised x/127.5 − 1, right-padded with 0
 * to the widest crop → FP32 [N,3,height,Wmax]. No boxes → FP32 [0,3,height,1] (empty).
 */
export const cropResize: OpImpl = {
  id: 'crop_resize',
  run(inputs, values) {
    const v = resolveValues('crop_resize', values);
    const image = input('crop_resize', inputs, 'image', 'UINT8', 3);
    const boxes = input('crop_resize', inputs, 'boxes', 'FP32', 2);
    const [ih, iw] = [dim(image, 0), dim(image, 1)];
    ensure(ih > 0 && iw > 0 && dim(image, 2) === 3, 'crop_resize', 'image', `must be [H,W,3] with H,W ≥ 1, got [${image.shape.join(',')}]`);
    ensure(dim(boxes, 1) === 4, 'crop_resize', 'boxes', `must be [N,4], got [${boxes.shape.join(',')}]`);
    const b = boxes.data as Float32Array;
    ensure(b.every((x) => Number.isFinite(x)), 'crop_resize', 'boxes', 'holds a non-finite coordinate');
    const height = num(v, 'height');
    const n = dim(boxes, 0);
    const regions = Array.from({ length: n }, (_, i) =>
      boxRegion(b[i * 4] ?? 0, b[i * 4 + 1] ?? 0, b[i * 4 + 2] ?? 0, b[i * 4 + 3] ?? 0, iw, ih));
    const widths = regions.map((r) => Math.min(Math.max(Math.ceil((height * r.w) / r.h), 1), num(v, 'max_width')));
    const wMax = Math.max(1, ...widths);
    const out = new Float32Array(n * 3 * height * wMax);
    regions.forEach((r, i) => {
      const tw = widths[i] ?? 1;
      const px = resizeBilinear(image.data as Uint8Array, iw, r, height, tw, 3);
      for (let c = 0; c < 3; c++) {
        for (let y = 0; y < height; y++) {
          const row = ((i * 3 + c) * height + y) * wMax;
          for (let x = 0; x < tw; x++) out[row + x] = (px[(y * tw + x) * 3 + c] ?? 0) / 127.5 - 1;
        }
      }
    });
    const crops: Tensor = { datatype: 'FP32', shape: [n, 3, height, wMax], data: out };
    return { crops };
  },
};
