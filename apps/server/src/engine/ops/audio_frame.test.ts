import { describe, expect, it } from 'vitest';
import { tensorFromJson } from '@ensemble-studio/core';
import { OPS } from './registry.ts';

const ctx = { readText: () => '' };

describe('audio_frame', () => {
  it('cuts context+window frames every window samples and reports the sample rate', () => {
    const audio = tensorFromJson('FP32', [10], [0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
    const out = OPS.audio_frame.run({ audio }, { window: 3, context: 2, sample_rate: 8000 }, ctx);
    expect(out.frames?.shape).toEqual([2, 5]);
    expect(Array.from(out.frames!.data as Float32Array)).toEqual([0, 1, 2, 3, 4, 3, 4, 5, 6, 7]);
    expect(out.sr?.datatype).toBe('INT64');
    expect(Array.from(out.sr!.data as BigInt64Array)).toEqual([8000n]);
  });

  it('frames the Silero VAD layout by default: 576 samples per 512', () => {
    const audio = tensorFromJson('FP32', [64 + 512 * 3], new Array(64 + 512 * 3).fill(0.5));
    expect(OPS.audio_frame.run({ audio }, {}, ctx).frames?.shape).toEqual([3, 576]);
  });

  it('follows a node whose values object changes between runs, and checks the new values', () => {
    const audio = tensorFromJson('FP32', [10], [0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
    const values: Record<string, number> = { window: 3, context: 2, sample_rate: 8000 };
    expect(OPS.audio_frame.run({ audio }, values, ctx).frames?.shape).toEqual([2, 5]);
    values.window = 4;
    expect(OPS.audio_frame.run({ audio }, values, ctx).frames?.shape).toEqual([2, 6]);
    delete (values as Partial<typeof values>).sample_rate;
    expect(Array.from(OPS.audio_frame.run({ audio }, values, ctx).sr!.data as BigInt64Array)).toEqual([16000n]);
    values.sample_rate = 1;
    expect(() => OPS.audio_frame.run({ audio }, values, ctx)).toThrow(/sample_rate/);
  });

  it('rejects a chunk shorter than context + window, naming the sizes', () => {
    const audio = tensorFromJson('FP32', [4], [0, 0, 0, 0]);
    expect(() => OPS.audio_frame.run({ audio }, { window: 3, context: 2 }, ctx)).toThrow(
      "audio_frame: input 'audio' has 4 samples, fewer than context + window = 2 + 3",
    );
  });
});
