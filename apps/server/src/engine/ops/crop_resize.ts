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

/** A crop at least this much taller than wide is turned upright (PaddleOCR's `get_rotate_crop_image`). */
const TALL = 1.5;

/** The pixels of `r` turned 90° counter-clockwise (numpy's `rot90`): [r.w rows, r.h columns, 3]. */
function rotatedRegion(src: Uint8Array, width: number, r: Region): Uint8Array {
  const out = new Uint8Array(r.w * r.h * 3);
  for (let i = 0; i < r.w; i++) {
    for (let j = 0; j < r.h; j++) {
      const from = ((r.y + j) * width + r.x + r.w - 1 - i) * 3;
      out.set(src.subarray(from, from + 3), (i * r.h + j) * 3);
    }
  }
  return out;
}

/**
 * The crop of `r` as the recogniser reads it: the region itself, or, when it is at least TALL times
 * taller than wide (vertical text, as PaddleOCR assumes), that region turned 90° counter-clockwise.
 */
function uprightCrop(src: Uint8Array, width: number, r: Region): { src: Uint8Array; width: number; region: Region } {
  if (r.h / r.w < TALL) return { src, width, region: r };
  return { src: rotatedRegion(src, width, r), width: r.h, region: { x: 0, y: 0, w: r.h, h: r.w } };
}

/**
 * The width the crops are padded to and each crop's own width, as PaddleOCR's recogniser sizes a batch
 * (`TextRecognizer.resize_norm_img`): pad = floor(height · the widest aspect ratio), at least
 * `minWidth` (PaddleOCR's 320) and at most `maxWidth`; each crop keeps its aspect ratio,
 * ceil(height · w/h), up to the pad. Squashing a long line into a fixed width garbles it.
 * @example cropWidths([{ x: 0, y: 0, w: 100, h: 10 }, { x: 0, y: 0, w: 20, h: 10 }], 48, 320, 3200) // { pad: 480, widths: [480, 96] }
 */
export function cropWidths(regions: Region[], height: number, minWidth: number, maxWidth: number): { pad: number; widths: number[] } {
  const ratios = regions.map((r) => r.w / r.h);
  const pad = Math.min(Math.max(minWidth, Math.floor(height * Math.max(0, ...ratios))), maxWidth);
  return { pad, widths: ratios.map((q) => Math.min(Math.max(Math.ceil(height * q), 1), pad)) };
}

/**
 * Crops each box from a UINT8 [H,W,3] image, turns a tall crop upright (`uprightCrop`) and resizes
 * it (bilinear, half-pixel) to height × its `cropWidths` width, normalised x/127.5 − 1, right-padded with 0 to the batch's width →
 * FP32 [N,3,height,pad]. No boxes → FP32 [0,3,height,min(min_width, max_width)] (empty).
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
    const crops = Array.from({ length: n }, (_, i) =>
      uprightCrop(image.data as Uint8Array, iw, boxRegion(b[i * 4] ?? 0, b[i * 4 + 1] ?? 0, b[i * 4 + 2] ?? 0, b[i * 4 + 3] ?? 0, iw, ih)));
    const { pad, widths } = cropWidths(crops.map((c) => c.region), height, num(v, 'min_width'), num(v, 'max_width'));
    const out = new Float32Array(n * 3 * height * pad);
    crops.forEach((crop, i) => {
      const tw = widths[i] ?? 1;
      const px = resizeBilinear(crop.src, crop.width, crop.region, height, tw, 3);
      for (let c = 0; c < 3; c++) {
        for (let y = 0; y < height; y++) {
          const row = ((i * 3 + c) * height + y) * pad;
          for (let x = 0; x < tw; x++) out[row + x] = (px[(y * tw + x) * 3 + c] ?? 0) / 127.5 - 1;
        }
      }
    });
    const batch: Tensor = { datatype: 'FP32', shape: [n, 3, height, pad], data: out };
    return { crops: batch };
  },
};
