import { describe, expect, it } from 'vitest';
import { tensorFromJson } from '@ensemble-studio/core';
import type { Tensor } from '@ensemble-studio/core';
import { OPS } from './registry.ts';
import { mostArrayBufferBytes } from '../../testing/allocation.ts';
import { cropWidths, quadSize } from './crop_resize.ts';

const ctx = { readText: () => '' };
/** Axis-aligned [x1, y1, x2, y2] as four corners: top-left, top-right, bottom-right, bottom-left. */
const corners = ([x1, y1, x2, y2]: number[]) => [x1!, y1!, x2!, y1!, x2!, y2!, x1!, y2!];
/** Crops `boxes`, each either [x1, y1, x2, y2] (axis-aligned) or eight corner coordinates. */
const run = (image: Tensor, boxes: number[][], values: Record<string, number | string | boolean> = {}) => {
  const b = tensorFromJson(
    'FP32',
    [boxes.length, 4, 2],
    boxes.flatMap((q) => (q.length === 4 ? corners(q) : q)),
  );
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
  it('sizes a crop as get_rotate_crop_image: the longer of each pair of opposite sides, truncated', () => {
    expect(
      quadSize([
        [0, 0],
        [10.7, 0],
        [10.7, 3],
        [0, 3],
      ]),
    ).toEqual({ w: 10, h: 3, tall: false });
    expect(
      quadSize([
        [0, 0],
        [3, 4],
        [-1, 7],
        [-4, 3],
      ]),
    ).toEqual({ w: 5, h: 5, tall: false });
    expect(
      quadSize([
        [2, 2],
        [2, 2],
        [2, 2],
        [2, 2],
      ]),
    ).toEqual({ w: 1, h: 1, tall: false });
    expect(
      quadSize([
        [0, 0],
        [4, 0],
        [4, 6],
        [0, 6],
      ]).tall,
    ).toBe(true);
  });

  it('warps a tilted box straight: a bar along the box reads as whole rows of the crop', () => {
    const deg = 20;
    const [c, s] = [Math.cos((deg * Math.PI) / 180), Math.sin((deg * Math.PI) / 180)];
    // A bright bar 6 px thick through (30, 30) at 20°.
    const img = image(60, 60, (y, x) => (Math.abs((y - 30) * c - (x - 30) * s) < 3 ? 255 : 0));
    const quad = [
      [-20, -6],
      [20, -6],
      [20, 6],
      [-20, 6],
    ].flatMap(([u, v]) => [30 + u! * c - v! * s, 30 + u! * s + v! * c]);
    const { shape, data } = run(img, [quad], { height: 12, min_width: 1 });
    expect(shape).toEqual([1, 3, 12, 40]);
    const px = (y: number, x: number) => (data[y * 40 + x]! + 1) * 127.5;
    for (const x of [2, 20, 37]) {
      expect(px(6, x)).toBeGreaterThan(200);
      expect(px(0, x)).toBeLessThan(50);
      expect(px(11, x)).toBeLessThan(50);
    }
  });

  it('crops at the box offset and keeps pixels as is when the crop is already `height` tall', () => {
    const img = image(8, 16, (_y, x) => x * 15);
    const { shape, data } = run(img, [[3, 0, 15, 8]], { height: 8, min_width: 1 });
    expect(shape).toEqual([1, 3, 8, 12]);
    const row = data.slice(0, 12).map((v) => Math.round((v + 1) * 127.5));
    expect(row).toEqual(Array.from({ length: 12 }, (_, k) => (k + 3) * 15));
  });

  it('writes the planes blue first by default (PaddleOCR reads BGR) and red first with channels rgb', () => {
    const img = tensorFromJson('UINT8', [8, 8, 3], new Array(64).fill([255, 0, 51]).flat());
    const plane = (data: number[], c: number) => Math.round((data[c * 64]! + 1) * 127.5);
    const bgr = run(img, [[0, 0, 8, 8]], { height: 8, min_width: 1 }).data;
    expect([0, 1, 2].map((c) => plane(bgr, c))).toEqual([51, 0, 255]);
    const rgb = run(img, [[0, 0, 8, 8]], { height: 8, min_width: 1, channels: 'rgb' }).data;
    expect([0, 1, 2].map((c) => plane(rgb, c))).toEqual([255, 0, 51]);
  });

  it('keeps the aspect ratio, normalises to [-1, 1] and right-pads with zeros', () => {
    const img = image(8, 32, (_y, x) => (x < 16 ? 255 : 0));
    const { shape, data } = run(
      img,
      [
        [0, 0, 16, 8],
        [16, 0, 28, 8],
      ],
      { height: 16, min_width: 1 },
    );
    expect(shape).toEqual([2, 3, 16, 32]);
    const plane = 16 * 32;
    expect(data.slice(0, 32)).toEqual(new Array(32).fill(1));
    expect(data.slice(3 * plane, 3 * plane + 32)).toEqual([...new Array(24).fill(-1), ...new Array(8).fill(0)]);
  });

  it('sizes the batch as PaddleOCR does: the widest aspect ratio, at least min_width, at most max_width', () => {
    const r = (w: number, h: number) => ({ w, h });
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
    expect(
      run(
        image(14, 10, () => 9),
        [[0, 0, 10, 14]],
        { height: 14, min_width: 1 },
      ).shape,
    ).toEqual([1, 3, 14, 10]);
  });

  it('returns an empty [0,3,height,min_width] batch when there are no boxes', () => {
    const out = run(
      image(4, 4, () => 0),
      [],
      { height: 48 },
    );
    expect(out.shape).toEqual([0, 3, 48, 320]);
    expect(out.data).toEqual([]);
  });

  it('rejects boxes that are not [N,4,2] or not finite', () => {
    const img = image(4, 4, () => 0);
    const b = tensorFromJson('FP32', [1, 3, 2], [0, 0, 1, 1, 2, 2]);
    expect(() => OPS.crop_resize.run({ image: img, boxes: b }, {}, ctx)).toThrow(
      /crop_resize: input 'boxes' must be \[N,4,2\]/,
    );
    expect(() =>
      OPS.crop_resize.run({ image: img, boxes: tensorFromJson('FP32', [1, 4], [0, 0, 1, 1]) }, {}, ctx),
    ).toThrow(/crop_resize: input 'boxes'.*rank 3/);
    expect(() => run(img, [[0, 0, Number.NaN, 1]])).toThrow(/crop_resize: input 'boxes' holds a non-finite/);
  });

  it('allocates its output and no crop-sized scratch array (fresh pages in a worker)', () => {
    const big = { datatype: 'UINT8', shape: [160, 640, 3], data: new Uint8Array(160 * 640 * 3).fill(200) } as Tensor;
    const boxes = tensorFromJson('FP32', [2, 4, 2], [...corners([10, 10, 630, 60]), ...corners([10, 80, 400, 150])]);
    const call = () => OPS.crop_resize.run({ image: big, boxes }, {}, ctx).crops!;
    call();
    const { result, bytes } = mostArrayBufferBytes(call, 3);
    const output = (result.data as Float32Array).byteLength; // 2 × 3 × 48 × 596 floats: 686 KB
    expect(bytes).toBeLessThan(output + 64 * 1024);
  });
});
