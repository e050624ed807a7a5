// Tests write their own PNG inputs with this (the studio only decodes images).
import { PNG } from 'pngjs';
import type { Tensor } from '@ensemble-studio/core';

/**
 * Encodes a UINT8 [H, W, 3] tensor as an RGB PNG.
 * @example decodeImage(encodePng(t)) // equals t (io/image.ts decodes)
 */
export function encodePng(t: Tensor): Uint8Array {
  const [h, w, c] = t.shape;
  if (t.datatype !== 'UINT8' || t.shape.length !== 3 || c !== 3 || h === undefined || w === undefined) {
    throw new Error(`encodePng: need UINT8 [H,W,3], got ${t.datatype} [${t.shape.join(',')}]`);
  }
  const png = new PNG({ width: w, height: h });
  const src = t.data as Uint8Array;
  for (let p = 0, q = 0; p < w * h * 3; p += 3, q += 4) {
    png.data[q] = src[p] ?? 0;
    png.data[q + 1] = src[p + 1] ?? 0;
    png.data[q + 2] = src[p + 2] ?? 0;
    png.data[q + 3] = 255;
  }
  return new Uint8Array(PNG.sync.write(png, { colorType: 2 }));
}
