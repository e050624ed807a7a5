import { describe, expect, it } from 'vitest';
import type { Tensor } from '@ensemble-studio/core';
import { summarizeTensor, thumbnail } from './tensorSummary.ts';

const fp32 = (shape: number[], f: (i: number) => number): Tensor => {
  const n = shape.reduce((a, b) => a * b, 1);
  return { datatype: 'FP32', shape, data: Float32Array.from({ length: n }, (_, i) => f(i)) };
};

describe('thumbnail', () => {
  it('box-averages a 4-D probability map to at most 64×64 from its first channel', () => {
    // [1,2,128,256]: channel 0 is 1 on the left half and 0 on the right; channel 1 is all 5.
    const h = 128;
    const w = 256;
    const t = fp32([1, 2, h, w], (i) => (i >= h * w ? 5 : i % w < w / 2 ? 1 : 0));
    const s = summarizeTensor(t);
    expect(s.data).toBeUndefined();
    expect(s.thumbnail?.shape).toEqual([64, 64]);
    const d = s.thumbnail!.data;
    expect(d).toHaveLength(64 * 64);
    expect(d[0]).toBe(1);
    expect(d[31]).toBe(1);
    expect(d[32]).toBe(0);
    expect(d[64 * 63 + 63]).toBe(0);
    expect(Math.max(...d)).toBe(1); // channel 1 never leaks in
  });

  it('averages each box: a 2×2 block of 0,1,2,3 becomes 1.5', () => {
    const t = thumbnail(
      Float32Array.from([0, 1, 4, 5, 2, 3, 6, 7, 8, 9, 12, 13, 10, 11, 14, 15].map((_, i) => i)),
      [4, 4],
    );
    expect(t).toEqual({ shape: [4, 4], data: Array.from({ length: 16 }, (_, i) => i) });
    const big = fp32([128, 128], (i) => Math.floor(i / 128) % 2); // odd rows 1, even rows 0
    expect(thumbnail(big.data as Float32Array, big.shape)!.data.every((v) => v === 0.5)).toBe(true);
  });

  it('keeps sides smaller than 64 and skips NaN', () => {
    const t = fp32([1, 1, 10, 700], (i) => (i === 0 ? Number.NaN : 2));
    const th = summarizeTensor(t).thumbnail!;
    expect(th.shape).toEqual([10, 64]);
    expect(th.data.every((v) => v === 2)).toBe(true);
  });

  it('is left out for small tensors (full data instead), other ranks and dtypes, and huge tensors', () => {
    expect(summarizeTensor(fp32([8, 8], () => 1)).thumbnail).toBeUndefined();
    expect(summarizeTensor(fp32([8, 8], () => 1)).data).toHaveLength(64);
    expect(summarizeTensor(fp32([1, 100, 100], () => 1)).thumbnail).toBeUndefined();
    expect(
      summarizeTensor({ datatype: 'INT32', shape: [100, 100], data: new Int32Array(10_000) }).thumbnail,
    ).toBeUndefined();
    expect(thumbnail(new Float32Array(2100 * 2100), [2100, 2100])).toBeUndefined();
  });
});
