import { describe, expect, it } from 'vitest';
import { resampler, Windower, windows } from './audioInput.ts';

const ramp = (n: number) => Float32Array.from({ length: n }, (_, i) => i + 1);

describe('Windower', () => {
  it('yields the same 576-sample windows as windows(), whatever the block sizes', () => {
    const samples = ramp(512 * 5 + 100);
    const want = [...windows(samples)];
    for (const block of [1, 128, 500, 4096]) {
      const got: Float32Array[] = [];
      const w = new Windower((x) => got.push(x));
      for (let i = 0; i < samples.length; i += block) w.push(samples.subarray(i, i + block));
      expect(w.flush()).toBe(true);
      expect(got).toHaveLength(Math.ceil(samples.length / 512));
      got.forEach((g, i) => expect(Array.from(g)).toEqual(Array.from(want[i]!)));
    }
  });

  it('carries the last 64 samples as context and has nothing to flush on a window boundary', () => {
    const got: Float32Array[] = [];
    const w = new Windower((x) => got.push(x));
    w.push(ramp(1024));
    expect(got.map((g) => g.length)).toEqual([576, 576]);
    expect(got[0]![63]).toBe(0);
    expect(got[1]![0]).toBe(512 - 63);
    expect(w.flush()).toBe(false);
  });
});

describe('resampler', () => {
  it('turns 48 kHz blocks into a third as many 16 kHz samples, continuous across blocks', () => {
    const r = resampler(48_000);
    const line = Float32Array.from({ length: 48_00 }, (_, i) => i);
    const out: number[] = [];
    for (let i = 0; i < line.length; i += 1000) out.push(...r(line.subarray(i, i + 1000)));
    expect(Math.abs(out.length - 1600)).toBeLessThanOrEqual(1);
    out.forEach((v, i) => expect(v).toBeCloseTo(i * 3, 4));
  });

  it('interpolates 44.1 kHz and passes 16 kHz through', () => {
    const r = resampler(44_100);
    const line = Float32Array.from({ length: 44_100 }, (_, i) => i / 44_100);
    const out = r(line);
    expect(Math.abs(out.length - 16_000)).toBeLessThanOrEqual(1);
    expect(out[8000]).toBeCloseTo(0.5, 4);
    expect(Array.from(resampler(16_000)(ramp(3)))).toEqual([1, 2, 3]);
  });
});
