import { readFileSync } from 'node:fs';
import ort from 'onnxruntime-node';
import { describe, expect, it } from 'vitest';
import { batchFirstState } from './batchFirstState.ts';
import { foldScalarInput } from './foldConstantInput.ts';
import { modelSources } from './modelSources.ts';

const silero = () => foldScalarInput(readFileSync(modelSources().vad), 'sr', 16000n);
const STATE = { input: 'state', output: 'stateN', dims: [2, 128] as [number, number] };

/** [2,B,128] → [B,2,128] (or back: the swap is its own inverse). */
function swap(data: Float32Array, a: number, b: number): Float32Array {
  const out = new Float32Array(data.length);
  for (let i = 0; i < a; i++)
    for (let j = 0; j < b; j++) out.set(data.subarray((i * b + j) * 128, (i * b + j + 1) * 128), (j * a + i) * 128);
  return out;
}

describe('batchFirstState', () => {
  it('gives Silero VAD a batch-first state with the same results, one stream or a batch of four', async () => {
    const original = await ort.InferenceSession.create(silero());
    const rewritten = await ort.InferenceSession.create(batchFirstState(silero(), STATE));
    expect(rewritten.inputNames).toEqual(['input', 'state']);
    expect(rewritten.outputNames).toEqual(['output', 'stateN']);
    const B = 4;
    let stateSecond: Float32Array = new Float32Array(2 * B * 128);
    let stateFirst: Float32Array = new Float32Array(2 * B * 128);
    for (let k = 0; k < 6; k++) {
      const x = Float32Array.from(
        { length: B * 576 },
        (_, i) => 0.4 * Math.sin(i * (0.03 + 0.01 * k)) * (1 + (i % 576 > 300 ? 1 : 0)),
      );
      const ra = await original.run({
        input: new ort.Tensor('float32', x, [B, 576]),
        state: new ort.Tensor('float32', stateSecond, [2, B, 128]),
      });
      const rb = await rewritten.run({
        input: new ort.Tensor('float32', x, [B, 576]),
        state: new ort.Tensor('float32', stateFirst, [B, 2, 128]),
      });
      expect(rb.stateN!.dims).toEqual([B, 2, 128]);
      expect(Array.from(rb.output!.data as Float32Array)).toEqual(Array.from(ra.output!.data as Float32Array));
      stateSecond = ra.stateN!.data as Float32Array;
      stateFirst = rb.stateN!.data as Float32Array;
      expect(Array.from(swap(stateFirst, B, 2))).toEqual(Array.from(stateSecond));
    }
  });

  it('names the state it could not find', () => {
    expect(() => batchFirstState(silero(), { ...STATE, input: 'h' })).toThrow(
      /graph input 'h' and a graph output 'stateN'/,
    );
  });
});
