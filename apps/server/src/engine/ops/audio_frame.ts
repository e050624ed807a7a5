import type { Tensor } from '@ensemble-studio/core';
import { dim, input, num, resolveValues } from './check.ts';
import type { OpImpl } from './opTypes.ts';

/**
 * FP32 [S] whose first `context` samples repeat the previous chunk → frames FP32 [F, context+window],
 * frame f = samples [f·window, f·window + context + window), F = floor((S − context) / window);
 * sr INT64 [1] = sample_rate. S < context + window is an error.
 */
export const audioFrame: OpImpl = {
  id: 'audio_frame',
  run(inputs, values) {
    // A stream runs this per chunk: values resolve from a cache, and a single frame is one copy, no views.
    const v = resolveValues('audio_frame', values);
    const audio = input('audio_frame', inputs, 'audio', 'FP32', 1);
    const window = num(v, 'window');
    const context = num(v, 'context');
    const s = dim(audio, 0);
    if (s < context + window) {
      throw new Error(
        `audio_frame: input 'audio' has ${s} samples, fewer than context + window = ${context} + ${window}`,
      );
    }
    const f = Math.floor((s - context) / window);
    const width = context + window;
    const src = audio.data as Float32Array;
    const frames = f === 1 ? src.slice(0, width) : new Float32Array(f * width);
    if (f !== 1) for (let i = 0; i < f; i++) frames.set(src.subarray(i * window, i * window + width), i * width);
    const sr = new BigInt64Array(1);
    sr[0] = BigInt(num(v, 'sample_rate'));
    const out: Record<string, Tensor> = {
      frames: { datatype: 'FP32', shape: [f, width], data: frames },
      sr: { datatype: 'INT64', shape: [1], data: sr },
    };
    return out;
  },
};
