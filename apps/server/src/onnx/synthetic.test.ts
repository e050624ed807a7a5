import { describe, expect, it } from 'vitest';
import * as ort from 'onnxruntime-node';
import { buildSyntheticModels, headWeights, mulberry32, SYNTHETIC, syntheticWeights } from './synthetic.ts';

function matmul(a: Float32Array, n: number, k: number, w: Float32Array, m: number, relu: boolean): Float32Array {
  const out = new Float32Array(n * m);
  for (let i = 0; i < n; i++) {
    for (let j = 0; j < m; j++) {
      let s = 0;
      for (let t = 0; t < k; t++) s += a[i * k + t]! * w[t * m + j]!;
      out[i * m + j] = relu ? Math.max(0, s) : s;
    }
  }
  return out;
}

function randomInput(n: number, seed: number): Float32Array {
  const r = mulberry32(seed);
  return Float32Array.from({ length: n }, () => r() * 2 - 1);
}

function maxAbsDiff(a: Float32Array, b: Float32Array): number {
  let m = 0;
  for (let i = 0; i < a.length; i++) m = Math.max(m, Math.abs(a[i]! - b[i]!));
  return m;
}

describe('synthetic ONNX models', () => {
  const models = buildSyntheticModels();

  it('are deterministic', () => {
    const again = buildSyntheticModels();
    for (const name of Object.keys(models))
      expect(Buffer.from(again[name]!).equals(Buffer.from(models[name]!))).toBe(true);
  });

  it('extractor computes relu(x · W)', async () => {
    const { D, F, SEED } = SYNTHETIC;
    const s = await ort.InferenceSession.create(models.extractor!);
    const x = randomInput(3 * D, 1);
    const out = await s.run({ x: new ort.Tensor('float32', x, [3, D]) });
    expect(out.feat!.dims).toEqual([3, F]);
    const ref = matmul(x, 3, D, syntheticWeights(D, F, SEED), F, true);
    expect(maxAbsDiff(out.feat!.data as Float32Array, ref)).toBeLessThan(1e-4);
    expect(ref.some((v) => v > 0)).toBe(true);
  });

  it('head computes its MLP', async () => {
    const { F, C } = SYNTHETIC;
    const s = await ort.InferenceSession.create(models.head!);
    const x = randomInput(2 * F, 2);
    const out = await s.run({ feat: new ort.Tensor('float32', x, [2, F]) });
    expect(out.logits!.dims).toEqual([2, C]);
    let cur = x;
    const ws = headWeights();
    ws.forEach((w, i) => {
      cur = matmul(cur, 2, w.rows, w.data, w.cols, i < ws.length - 1);
    });
    expect(maxAbsDiff(out.logits!.data as Float32Array, cur)).toBeLessThan(1e-3);
  });

  it('accumulator adds its state', async () => {
    const { S } = SYNTHETIC;
    const s = await ort.InferenceSession.create(models.accumulator!);
    const x = Float32Array.from({ length: 2 * S }, (_, i) => i);
    const st = Float32Array.from({ length: 2 * S }, () => 10);
    const out = await s.run({
      x: new ort.Tensor('float32', x, [2, S]),
      state_in: new ort.Tensor('float32', st, [2, S]),
    });
    expect(Array.from(out.y!.data as Float32Array)).toEqual(Array.from(x, (v) => v + 10));
    expect(Array.from(out.state_out!.data as Float32Array)).toEqual(Array.from(x, (v) => v + 10));
  });
});
