import { describe, expect, it } from 'vitest';
import { resample } from './resample.ts';

const tone = (hz: number, rate: number, seconds: number) =>
  Float32Array.from({ length: Math.round(rate * seconds) }, (_, i) => Math.sin((2 * Math.PI * hz * i) / rate));
const rms = (x: Float32Array, from: number, to: number) =>
  Math.sqrt(x.subarray(from, to).reduce((s, v) => s + v * v, 0) / (to - from));

describe('resample (torchaudio sinc_interp_hann)', () => {
  it('gives ceil(n · to / from) samples and a copy at the same rate', () => {
    expect(resample(new Float32Array(44100), 44100, 16000).length).toBe(16000);
    expect(resample(new Float32Array(1001), 48000, 16000).length).toBe(334);
    expect(resample(new Float32Array(3), 8000, 16000).length).toBe(6);
    expect(resample(new Float32Array(0), 44100, 16000).length).toBe(0);
    const s = Float32Array.of(1, 2);
    expect(resample(s, 16000, 16000)).toEqual(s);
    expect(resample(s, 16000, 16000)).not.toBe(s);
  });

  it('keeps a tone inside the new band: same frequency, same amplitude', () => {
    for (const from of [44100, 48000, 8000, 22050]) {
      const out = resample(tone(440, from, 0.5), from, 16000);
      const ref = tone(440, 16000, 0.5);
      // Away from the edges (where the filter sees the zero padding) the samples are the tone's.
      let worst = 0;
      for (let i = 400; i < out.length - 400; i++) worst = Math.max(worst, Math.abs(out[i]! - ref[i]!));
      expect(worst).toBeLessThan(from === 8000 ? 2e-3 : 1e-3);
    }
  });

  it('removes what lies above the new Nyquist frequency instead of folding it into the band', () => {
    // 11 kHz at 44.1 kHz: linear interpolation to 16 kHz folds it to 5 kHz, RMS 0.58 (the tone itself: 0.71).
    const out = resample(tone(11000, 44100, 0.5), 44100, 16000);
    expect(rms(out, 400, out.length - 400)).toBeLessThan(0.01);
  });

  it('rejects rates that are not positive whole numbers, and tables too large to build', () => {
    expect(() => resample(new Float32Array(4), 0, 16000)).toThrow(/resample: rates must be positive whole numbers/);
    expect(() => resample(new Float32Array(4), 44100.5, 16000)).toThrow(/positive whole numbers/);
    expect(() => resample(new Float32Array(4), 44101, 16001)).toThrow(
      /resample: 44101 Hz → 16001 Hz needs a .*filter table/,
    );
  });
});
