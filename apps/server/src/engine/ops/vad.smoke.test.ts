// audio_frame against the real Silero VAD: the decoded speech WAV (1 s silence, speech, 1 s
// silence) framed as 64 context + 512 new samples, run frame by frame with the model's state.
import { readFileSync } from 'node:fs';
import * as ort from 'onnxruntime-node';
import { beforeAll, describe, expect, it } from 'vitest';
import { decodeWav, resample } from '../../io/index.ts';
import { OPS } from './registry.ts';
import { makeFixtures, VAD_MODEL } from '../../testing/smokeSupport.ts';

let probs: number[] = [];
let sampleRate = 0;
let session: ort.InferenceSession;

/** Speech probability per 512-sample chunk of a 16 kHz signal, chunk after chunk with the model's state. */
async function vadProbs(samples: Float32Array): Promise<number[]> {
  // The first chunk of a stream has no previous samples: its context is 64 zeros.
  const chunk = new Float32Array(64 + samples.length);
  chunk.set(samples, 64);
  const { frames, sr } = OPS.audio_frame.run(
    { audio: { datatype: 'FP32', shape: [chunk.length], data: chunk } },
    {},
    { readText: () => '' },
  );
  let state: ort.Tensor = new ort.Tensor('float32', new Float32Array(2 * 128), [2, 1, 128]);
  const srT = new ort.Tensor('int64', BigInt64Array.from(sr!.data as BigInt64Array), []);
  const [f, width] = frames!.shape as [number, number];
  const out: number[] = [];
  for (let i = 0; i < f; i++) {
    const input = new ort.Tensor('float32', (frames!.data as Float32Array).slice(i * width, (i + 1) * width), [
      1,
      width,
    ]);
    const r = await session.run({ input, state, sr: srT });
    out.push((r.output!.data as Float32Array)[0] ?? 0);
    state = r.stateN!;
  }
  return out;
}

beforeAll(async () => {
  const wav = decodeWav(readFileSync(makeFixtures().speech));
  sampleRate = wav.sampleRate;
  session = await ort.InferenceSession.create(VAD_MODEL);
  probs = await vadProbs(wav.samples);
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
    console.log(
      `VAD: lead max ${Math.max(...lead).toFixed(3)}, tail max ${Math.max(...tail).toFixed(3)}, speech share ${(middle.filter((p) => p > 0.5).length / middle.length).toFixed(2)}`,
    );
    expect(Math.max(...lead)).toBeLessThan(0.3);
    expect(Math.max(...tail)).toBeLessThan(0.3);
    expect(middle.filter((p) => p > 0.5).length / middle.length).toBeGreaterThan(0.5);
  });

  it('hears the same speech in a 44.1 kHz stereo copy of the recording once it is resampled to 16 kHz', async () => {
    const wav = decodeWav(readFileSync(makeFixtures().speech44k));
    expect(wav.sampleRate).toBe(44100);
    const again = await vadProbs(resample(wav.samples, 44100, 16000));
    expect(Math.abs(again.length - probs.length)).toBeLessThanOrEqual(1);
    const agree = probs.filter((p, i) => p > 0.5 === (again[i] ?? 0) > 0.5).length / probs.length;
    expect(agree).toBeGreaterThan(0.95);
  });
});
