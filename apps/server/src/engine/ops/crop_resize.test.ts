import { describe, expect, it } from 'vitest';
import { tensorFromJson } from '@ensemble-studio/core';
import type { Tensor } from '@ensemble-studio/core';
import { OPS } from './registry.ts';
import { boxRegion, cropWidths } from './crop_resize.ts';

const ctx = { readText: () => '' };
const run = (image: Tensor, boxes: number[][], values: Record<string, number | string | boolean> = {}) => {
  const b = tensorFromJson('FP32', [boxes.length, 4], boxes.flat());
  const out = OPS.crop_resize.run({ image, boxes: b }, values, ctx).crops!;
  return { shape: out.shape, data: Array.from(out.data as Float32Array) };
};

/** An h×w RGB image whose pixel (y, x) is (v, v, v) with v = f(y, x). */
function image(h: number, w: number, f: (y: number, x: number) => number): Tensor {
  const flat: number[] = [];
  for (let y = 0; y < h; y++) for (let x = 0; x < w; x++) flat.push(f(y, x), f(y, x), f(y, x));
  return tensorFromJson('UINT8', [h, w, 3], flat);
}

describe('crop_resize', () => {
  it('snaps a float box outwards to whole pixels inside the image', () => {
    expect(boxRegion(0.5, 1.2, 3.1, 4, 10, 10)).toEqual({ x: 0, y: 1, w: 4, h: 3 });
    expect(boxRegion(-5, -5, 50, 50, 10, 8)).toEqual({ x: 0, y: 0, w: 10, h: 8 });
    expect(boxRegion(9.5, 3, 9.5, 3, 10, 8)).toEqual({ x: 9, y: 3, w: 1, h: 1 });
  });

  it('crops at the box offset and keeps pixels as is when the crop is already `height` tall', () => {
    const img = image(8, 16, (_y, x) => x * 15);
    const { shape, data } = run(img, [[3, 0, 15, 8]], { height: 8, min_width: 1 });
    expect(shape).toEqual([1, 3, 8, 12]);
    const row = data.slice(0, 12).map((v) => Math.round((v + 1) * 127.5));
    expect(row).toEqual(Array.from({ length: 12 }, (_, k) => (k + 3) * 15));
  });

  it('keeps the aspect ratio, normalises to [-1, 1] and right-pads with zeros', () => {
    const img = image(8, 32, (_y, x) => (x < 16 ? 255 : 0));
    const { shape, data } = run(img, [[0, 0, 16, 8], [16, 0, 28, 8]], { height: 16, min_width: 1 });
    expect(shape).toEqual([2, 3, 16, 32]);
    const plane = 16 * 32;
    expect(data.slice(0, 32)).toEqual(new Array(32).fill(1));
    expect(data.slice(3 * plane, 3 * plane + 32)).toEqual([...new Array(24).fill(-1), ...new Array(8).fill(0)]);
  });

  it('sizes the batch as PaddleOCR does: the widest aspect ratio, at least min_width, at most max_width', () => {
    const r = (w: number, h: number) => ({ x: 0, y: 0, w, h });
    // A long line keeps its aspect ratio (a 1000×40 line at height 48 is 1200 wide, not squashed into 320).
    expect(cropWidths([r(1000, 40), r(100, 40)], 48, 320, 3200)).toEqual({ pad: 1200, widths: [1200, 120] });
    // Narrow crops are padded to min_width; floor for the pad, ceil for a crop, as resize_norm_img.
    expect(cropWidths([r(10, 3)], 48, 320, 3200)).toEqual({ pad: 320, widths: [160] });
    expect(cropWidths([r(7, 3), r(5, 3)], 10, 1, 3200)).toEqual({ pad: 23, widths: [23, 17] });
    // max_width caps the pad and every crop; the cap wins over min_width.
    expect(cropWidths([r(1000, 10)], 48, 320, 500)).toEqual({ pad: 500, widths: [500] });
    expect(cropWidths([], 48, 320, 100)).toEqual({ pad: 100, widths: [] });
    const img = image(8, 64, () => 128);
    expect(run(img, [[0, 0, 64, 8]], { height: 8, max_width: 10 }).shape).toEqual([1, 3, 8, 10]);
    expect(run(img, [[0, 0, 64, 8]], { height: 8 }).shape).toEqual([1, 3, 8, 320]);
  });

  it('turns a crop at least 1.5× taller than wide 90° counter-clockwise, as PaddleOCR does with vertical text', () => {
    const img = image(16, 8, (y, x) => y * 10 + x * 15);
    const { shape, data } = run(img, [[0, 0, 8, 16]], { height: 8, min_width: 1 });
    expect(shape).toEqual([1, 3, 8, 16]);
    const px = data.slice(0, 32).map((v) => Math.round((v + 1) * 127.5));
    // Row 0 is the right-hand column (x = 7) read top to bottom, row 1 the next one (x = 6).
    const column = (x: number) => Array.from({ length: 16 }, (_, y) => y * 10 + x * 15);
    expect(px).toEqual([...column(7), ...column(6)]);
    // 1.4× taller stays as it is.
    expect(run(image(14, 10, () => 9), [[0, 0, 10, 14]], { height: 14, min_width: 1 }).shape).toEqual([1, 3, 14, 10]);
  });

  it('returns an empty [0,3,height,min_width] batch when there are no boxes', () => {
    const out = run(image(4, 4, () => 0), [], { height: 48 });
    expect(out.shape).toEqual([0, 3, 48, 320]);
    expect(out.data).toEqual([]);
  });

  it('rejects boxes that are not [N,4] or not finite', () => {
    const img = image(4, 4, () => 0);
    const b = tensorFromJson('FP32', [1, 3], [0, 0, 1]);
    expect(() => OPS.crop_resize.run({ image: img, boxes: b }, {}, ctx)).toThrow(/crop_resize: input 'boxes' must be \[N,4\]/);
    expect(() => run(img, [[0, 0, Number.NaN, 1]])).toThrow(/crop_resize: input 'boxes' holds a non-finite/);
  });
});
