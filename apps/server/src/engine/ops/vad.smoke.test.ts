// audio_frame against the real Silero VAD: the decoded speech WAV (1 s silence, speech, 1 s
// silence) framed as 64 context + 512 new samples, run frame by frame with the model's state.
import { readFileSync } from 'node:fs';
import * as ort from 'onnxruntime-node';
import { beforeAll, describe, expect, it } from 'vitest';
import { decodeWav } from '../../io/index.ts';
import { OPS } from './registry.ts';
import { makeFixtures, VAD_MODEL } from './smokeSupport.ts';

let probs: number[] = [];
let sampleRate = 0;

beforeAll(async () => {
  const wav = decodeWav(readFileSync(makeFixtures().speech));
  sampleRate = wav.sampleRate;
  // The first chunk of a stream has no previous samples: its context is 64 zeros.
  const chunk = new Float32Array(64 + wav.samples.length);
  chunk.set(wav.samples, 64);
  const { frames, sr } = OPS.audio_frame.run({ audio: { datatype: 'FP32', shape: [chunk.length], data: chunk } }, {}, { readText: () => '' });
  const session = await ort.InferenceSession.create(VAD_MODEL);
  let state: ort.Tensor = new ort.Tensor('float32', new Float32Array(2 * 128), [2, 1, 128]);
  const srT = new ort.Tensor('int64', BigInt64Array.from(sr!.data as BigInt64Array), []);
  const [f, width] = frames!.shape as [number, number];
  for (let i = 0; i < f; i++) {
    const input = new ort.Tensor('float32', (frames!.data as Float32Array).slice(i * width, (i + 1) * width), [1, width]);
    const out = await session.run({ input, state, sr: srT });
    probs.push((out.output!.data as Float32Array)[0] ?? 0);
    state = out.stateN!;
  }
});

describe('audio_frame with the real Silero VAD', () => {
  it('frames the decoded 16 kHz WAV into 576-sample windows, one per 32 ms', () => {
    expect(sampleRate).toBe(16000);
    expect(probs.length).toBeGreaterThan(100);
  });

  it('hears speech in the middle and silence in the padding', () => {
    const perSecond = 16000 / 512;
    const lead = probs.slice(0, Math.floor(perSecond * 0.8));
    const tail = probs.slice(probs.length - Math.floor(perSecond * 0.5));
    const middle = probs.slice(Math.ceil(perSecond * 1.2), probs.length - Math.ceil(perSecond * 1.2));
    console.log(`VAD: lead max ${Math.max(...lead).toFixed(3)}, tail max ${Math.max(...tail).toFixed(3)}, speech share ${(middle.filter((p) => p > 0.5).length / middle.length).toFixed(2)}`);
    expect(Math.max(...lead)).toBeLessThan(0.3);
    expect(Math.max(...tail)).toBeLessThan(0.3);
    expect(middle.filter((p) => p > 0.5).length / middle.length).toBeGreaterThan(0.5);
  });
});
