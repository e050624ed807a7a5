import { describe, expect, it } from 'vitest';
import { tensorFromJson } from '@ensemble-studio/core';
import { OPS } from './registry.ts';
import { mostArrayBufferBytes } from '../../testing/allocation.ts';
import { targetSide } from './image_preprocess.ts';

const ctx = { readText: () => '' };
const run = (image: ReturnType<typeof tensorFromJson>, values: Record<string, number | string | boolean>) =>
  OPS.image_preprocess.run({ image }, values, ctx);
const f32 = (t: { data: unknown }) => Array.from(t.data as Float32Array);

describe('image_preprocess', () => {
  it('rounds each side to the nearest multiple, at least one, at most max_side', () => {
    expect(targetSide(100, 1, 32, 960)).toBe(96);
    expect(targetSide(10, 1, 32, 960)).toBe(32);
    expect(targetSide(1000, 0.96, 32, 960)).toBe(960);
    expect(targetSide(1010, 1, 32, 1010)).toBe(992);
  });

  it('keeps a 2×2 image as is with multiple 1 and lays it out CHW, blue plane first by default', () => {
    const img = tensorFromJson('UINT8', [2, 2, 3], [0, 1, 2, 10, 11, 12, 20, 21, 22, 30, 31, 32]);
    const { tensor, shape_info } = run(img, { multiple: 1, normalize: 'unit' });
    expect(tensor?.shape).toEqual([1, 3, 2, 2]);
    expect(f32(tensor!).map((x) => Math.round(x * 255))).toEqual([2, 12, 22, 32, 1, 11, 21, 31, 0, 10, 20, 30]);
    expect(f32(shape_info!)).toEqual([2, 2, 1, 1]);
    const rgb = run(img, { multiple: 1, normalize: 'unit', channels: 'rgb' }).tensor!;
    expect(f32(rgb).map((x) => Math.round(x * 255))).toEqual([0, 10, 20, 30, 1, 11, 21, 31, 2, 12, 22, 32]);
  });

  it('orders the planes the same way when it resizes', () => {
    const img = tensorFromJson('UINT8', [1, 1, 3], [10, 20, 30]);
    const bgr = f32(run(img, { multiple: 2, normalize: 'unit' }).tensor!).map((x) => Math.round(x * 255));
    expect(bgr).toEqual([30, 30, 30, 30, 20, 20, 20, 20, 10, 10, 10, 10]);
    const rgb = f32(run(img, { multiple: 2, normalize: 'unit', channels: 'rgb' }).tensor!).map((x) =>
      Math.round(x * 255),
    );
    expect(rgb).toEqual([10, 10, 10, 10, 20, 20, 20, 20, 30, 30, 30, 30]);
  });

  it('upsamples with half-pixel bilinear sampling', () => {
    // 1×2 image [0, 100] → 4×4: x samples clamp(-0.25)=0, 0.25, 0.75, clamp(1.25)=1.
    const img = tensorFromJson('UINT8', [1, 2, 3], [0, 0, 0, 100, 100, 100]);
    const { tensor, shape_info } = run(img, { multiple: 4, normalize: 'unit' });
    expect(tensor?.shape).toEqual([1, 3, 4, 4]);
    const row = f32(tensor!)
      .slice(0, 4)
      .map((x) => x * 255);
    row.forEach((x, i) => expect(x).toBeCloseTo([0, 25, 75, 100][i]!, 4));
    expect(f32(shape_info!)).toEqual([1, 2, 4, 2]);
  });

  it('scales the longer side down to max_side and reports the ratios', () => {
    const img = tensorFromJson('UINT8', [64, 128, 3], new Array(64 * 128 * 3).fill(255));
    const { tensor, shape_info } = run(img, { max_side: 64, multiple: 32, normalize: 'half' });
    expect(tensor?.shape).toEqual([1, 3, 32, 64]);
    expect(f32(tensor!).every((x) => x === 1)).toBe(true);
    expect(f32(shape_info!)).toEqual([64, 128, 0.5, 0.5]);
  });

  it('normalises each plane with the ImageNet mean and std in plane order (PaddleOCR: plane 0 is blue)', () => {
    const img = tensorFromJson('UINT8', [1, 1, 3], [255, 0, 128]);
    const bgr = f32(run(img, { multiple: 1 }).tensor!);
    expect(bgr[0]).toBeCloseTo((128 / 255 - 0.485) / 0.229, 5);
    expect(bgr[1]).toBeCloseTo((0 - 0.456) / 0.224, 5);
    expect(bgr[2]).toBeCloseTo((1 - 0.406) / 0.225, 5);
    const rgb = f32(run(img, { multiple: 1, channels: 'rgb' }).tensor!);
    expect(rgb[0]).toBeCloseTo((1 - 0.485) / 0.229, 5);
    expect(rgb[2]).toBeCloseTo((128 / 255 - 0.406) / 0.225, 5);
  });

  it('maps every pixel of an image already at its size, however many there are (four a turn, the rest one by one)', () => {
    const mean = [0.485, 0.456, 0.406];
    const std = [0.229, 0.224, 0.225];
    for (let w = 1; w <= 13; w++)
      for (const [channels, order] of [
        ['bgr', [2, 1, 0]],
        ['rgb', [0, 1, 2]],
      ] as const) {
        const bytes = Array.from({ length: w * 3 }, (_, k) => (k * 37 + w) % 256);
        const out = run(tensorFromJson('UINT8', [1, w, 3], bytes), {
          max_side: 4096,
          multiple: 1,
          normalize: 'imagenet',
          channels,
        });
        const expected = [0, 1, 2].flatMap((c) =>
          Array.from({ length: w }, (_, p) => Math.fround((bytes[p * 3 + order[c]!]! / 255 - mean[c]!) / std[c]!)),
        );
        expect(f32(out.tensor!)).toEqual(expected);
      }
  });

  it('rejects a wrong dtype, channel count or param with the op and port named', () => {
    const fp = tensorFromJson('FP32', [1, 1, 3], [0, 0, 0]);
    expect(() => run(fp, {})).toThrow(/image_preprocess: input 'image' must be UINT8/);
    const gray = tensorFromJson('UINT8', [1, 1, 1], [0]);
    expect(() => run(gray, {})).toThrow(/image_preprocess: input 'image' must be \[H,W,3\]/);
    const img = tensorFromJson('UINT8', [1, 1, 3], [0, 0, 0]);
    expect(() => run(img, { normalize: 'zscore' })).toThrow(/image_preprocess: param normalize/);
    expect(() => run(img, { channels: 'bgra' })).toThrow(/image_preprocess: param channels/);
  });

  it('resizes into its output with no copy of the resized image (fresh pages in a worker)', () => {
    const image = { datatype: 'UINT8' as const, shape: [360, 640, 3], data: new Uint8Array(360 * 640 * 3).fill(90) };
    const call = () => run(image, { max_side: 480 }).tensor!;
    expect(call().shape).toEqual([1, 3, 256, 480]); // resized: 360 × 640 → 256 × 480
    const { result, bytes } = mostArrayBufferBytes(call, 3);
    const output = (result.data as Float32Array).byteLength; // 1.47 MB; a float64 copy would add 2.9 MB
    expect(bytes).toBeLessThan(output + 64 * 1024);
  });
});
