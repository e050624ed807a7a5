// The copies the engine makes of a caller's inputs reuse buffers the workers give back, and a reused buffer
// never carries one run's data into another's.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Tensor } from '@ensemble-studio/core';
import { copyBuffers } from './bufferPool.ts';
import { Engine } from './Engine.ts';
import { writeEngineRepository } from '../testing/engineFixtureRepository.ts';
import { singleModelGraph } from '../testing/engineGraphs.ts';
import { tempDir } from '../testing/tempDir.ts';
import { SYNTHETIC } from '../onnx/synthetic.ts';

let engine: Engine;
beforeAll(async () => {
  engine = await Engine.create({ repository: writeEngineRepository(tempDir('engine-pool-'), ['head']) });
});
afterAll(async () => engine?.close());

const graph = singleModelGraph(
  'head',
  [{ name: 'feat', dims: [SYNTHETIC.F] }],
  [{ name: 'logits', dims: [SYNTHETIC.C] }],
  64,
);
// 64 rows: a copy large enough to matter, of a length no other test here uses.
const feat = (v: number): Tensor => ({
  datatype: 'FP32',
  shape: [64, SYNTHETIC.F],
  data: Float32Array.from({ length: 64 * SYNTHETIC.F }, (_, i) => Math.sin(i * v)),
});
const logits = async (x: Tensor) => {
  const r = await engine.run({ graph, inputs: { feat: x } });
  expect(r.status, r.error?.message).toBe('completed');
  return Array.from(r.outputs.logits!.data as Float32Array);
};

describe('copies of caller inputs', () => {
  it('go to the worker in buffers it gives back, and the caller keeps its own', async () => {
    const x = feat(1);
    const bytes = (x.data as Float32Array).byteLength;
    await logits(x);
    expect((x.data as Float32Array).byteLength, 'the caller’s input is not taken').toBe(bytes);
    const held = copyBuffers.heldBytes;
    expect(held).toBeGreaterThanOrEqual(bytes);
    // The next copy of that length takes the given-back buffer (and the worker gives it back again).
    const taken = copyBuffers.take(bytes);
    expect(copyBuffers.heldBytes).toBe(held - bytes);
    copyBuffers.give(taken);
  });

  it('a reused buffer holds only the run’s own data', async () => {
    const [a, b] = [feat(1), feat(2)];
    const first = await logits(a);
    const other = await logits(b);
    const again = await logits(a);
    expect(again).toEqual(first);
    expect(other).not.toEqual(first);
  });
});
