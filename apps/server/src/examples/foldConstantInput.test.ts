import { readFileSync } from 'node:fs';
import ort from 'onnxruntime-node';
import { describe, expect, it } from 'vitest';
import { foldScalarInput } from './foldConstantInput.ts';
import { modelSources } from './modelSources.ts';

const sileroPath = modelSources().vad;

describe('foldScalarInput', () => {
  it('turns Silero VAD sr into a constant and keeps its outputs bit-identical', async () => {
    const original = readFileSync(sileroPath);
    const folded = foldScalarInput(original, 'sr', 16000n);
    const a = await ort.InferenceSession.create(original);
    const b = await ort.InferenceSession.create(folded);
    expect(b.inputNames).toEqual(['input', 'state']);
    let stateA: ort.Tensor = new ort.Tensor('float32', new Float32Array(256), [2, 1, 128]);
    let stateB = stateA;
    for (let k = 0; k < 5; k++) {
      const x = Float32Array.from({ length: 576 }, (_, i) => 0.4 * Math.sin(i * (0.03 + 0.02 * k)));
      const ra = await a.run({
        input: new ort.Tensor('float32', x, [1, 576]),
        state: stateA,
        sr: new ort.Tensor('int64', BigInt64Array.from([16000n]), []),
      });
      const rb = await b.run({ input: new ort.Tensor('float32', x, [1, 576]), state: stateB });
      expect(Array.from(rb.output!.data as Float32Array)).toEqual(Array.from(ra.output!.data as Float32Array));
      stateA = ra.stateN as ort.Tensor;
      stateB = rb.stateN as ort.Tensor;
    }
  });

  it('names the input it could not find', () => {
    expect(() => foldScalarInput(readFileSync(sileroPath), 'rate', 1n)).toThrow(/no graph input named 'rate'/);
  });
});
