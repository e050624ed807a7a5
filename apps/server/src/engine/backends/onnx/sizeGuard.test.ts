import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { singleModelGraph, type Tensor } from '@ensemble-studio/core';
import { encodeModel, ONNX_TYPES } from '../../../onnx/onnxModel.ts';
import { loadRepository } from '../../../repo/loadRepository.ts';
import type { Repository } from '../../../repo/types.ts';
import { writeExpandingOnnxModel } from '../../../testing/expandingOnnxModel.ts';
import { tempDir } from '../../../testing/tempDir.ts';
import { Engine } from '../../Engine.ts';

// Real onnxruntime: tensors whose size a request's values choose are refused before onnxruntime makes them, whether
// the values come straight from an input or are computed from one, and whether the tensor is an output or not.

const LIMITS = { maxTensorElements: 1_000_000, maxBodyBytes: 64 << 20 };
let repo: Repository;
let engine: Engine;

/** `summed`: SHAPE × 1000 zeros made by ConstantOfShape (an intermediate), summed to one number (the output). */
function writeSummingModel(dir: string): void {
  const model = encodeModel({
    name: 'summed',
    nodes: [
      { opType: 'Mul', inputs: ['SHAPE', 'K'], outputs: ['SCALED'] },
      { opType: 'ConstantOfShape', inputs: ['SCALED'], outputs: ['ZEROS'] },
      { opType: 'ReduceSum', inputs: ['ZEROS'], outputs: ['SUM'], attributes: [{ name: 'keepdims', int: 1 }] },
    ],
    inputs: [{ name: 'SHAPE', elemType: ONNX_TYPES.INT64, dims: [1] }],
    outputs: [{ name: 'SUM', elemType: ONNX_TYPES.FLOAT, dims: [1] }],
    initializers: [{ name: 'K', dims: [1], data: BigInt64Array.of(1000n) }],
  });
  mkdirSync(join(dir, 'summed', '1'), { recursive: true });
  writeFileSync(join(dir, 'summed', '1', 'model.onnx'), model);
  writeFileSync(
    join(dir, 'summed', 'config.pbtxt'),
    `name: "summed"\nplatform: "onnxruntime_onnx"\nmax_batch_size: 0\ninput [ { name: "SHAPE" data_type: TYPE_INT64 dims: [ 1 ] } ]\noutput [ { name: "SUM" data_type: TYPE_FP32 dims: [ 1 ] } ]\n`,
  );
}

/** `squared`: X [n] → n² zeros (ConstantOfShape of Shape(X) × Shape(X)), summed: a size from X's shape alone. */
function writeSquaringModel(dir: string): void {
  const model = encodeModel({
    name: 'squared',
    nodes: [
      { opType: 'Shape', inputs: ['X'], outputs: ['N'] },
      { opType: 'Mul', inputs: ['N', 'N'], outputs: ['NN'] },
      { opType: 'ConstantOfShape', inputs: ['NN'], outputs: ['ZEROS'] },
      { opType: 'ReduceSum', inputs: ['ZEROS'], outputs: ['SUM'], attributes: [{ name: 'keepdims', int: 1 }] },
    ],
    inputs: [{ name: 'X', elemType: ONNX_TYPES.FLOAT, dims: ['n'] }],
    outputs: [{ name: 'SUM', elemType: ONNX_TYPES.FLOAT, dims: [1] }],
    initializers: [],
  });
  mkdirSync(join(dir, 'squared', '1'), { recursive: true });
  writeFileSync(join(dir, 'squared', '1', 'model.onnx'), model);
  writeFileSync(
    join(dir, 'squared', 'config.pbtxt'),
    `name: "squared"\nplatform: "onnxruntime_onnx"\nmax_batch_size: 0\ninput [ { name: "X" data_type: TYPE_FP32 dims: [ -1 ] } ]\noutput [ { name: "SUM" data_type: TYPE_FP32 dims: [ 1 ] } ]\n`,
  );
}

const shape = (n: number): Tensor => ({ datatype: 'INT64', shape: [1], data: BigInt64Array.of(BigInt(n)) });
const run = (model: string, n: number) =>
  engine.run({ graph: singleModelGraph(repo.catalogue.models[model]!), inputs: { SHAPE: shape(n) } });

beforeAll(async () => {
  const dir = tempDir('onnx-size-guard-');
  writeExpandingOnnxModel(dir, 'expand');
  writeSummingModel(dir);
  writeSquaringModel(dir);
  repo = await loadRepository(dir);
  engine = await Engine.create({ repository: repo, tensorLimits: LIMITS });
}, 60_000);
afterAll(async () => {
  await engine?.close();
});

describe('tensors whose size a request chooses', () => {
  it('an output sized by an input is refused before it is made, naming the model and output', async () => {
    const rss = process.memoryUsage.rss();
    const r = await run('expand', 2 ** 28);
    expect(r.error?.message).toContain(
      "output 'OUT' of model 'expand' would have 268435456 elements, over the limit maxTensorElements=1000000; refused before it was made",
    );
    // Made first, it took 1 GB (8 GB for 2^31) before the check after the run refused it.
    expect(process.memoryUsage.rss() - rss).toBeLessThan(512 << 20);
    expect((await run('expand', 1000)).status).toBe('completed');
  });

  it('an intermediate tensor sized by arithmetic on an input is refused too; within the limit the model runs', async () => {
    const r = await run('summed', 5000);
    expect(r.status).toBe('failed');
    expect(r.error?.message).toContain(
      "tensor 'ZEROS' (ConstantOfShape) of model 'summed' would have 5000000 elements, over the limit maxTensorElements=1000000",
    );
    const ok = await run('summed', 3);
    expect(ok.status).toBe('completed');
    expect(Array.from(ok.outputs.SUM!.data as Float32Array)).toEqual([0]);
  });

  it('a size that follows from an input shape alone is checked for each shape, again when it comes back', async () => {
    const squared = (n: number) =>
      engine.run({
        graph: singleModelGraph(repo.catalogue.models.squared!),
        inputs: { X: { datatype: 'FP32', shape: [n], data: new Float32Array(n) } },
      });
    for (const n of [2000, 10, 2000, 10]) {
      const r = await squared(n);
      if (n === 10) expect(r.status).toBe('completed');
      else
        expect(r.error?.message).toContain(
          "tensor 'ZEROS' (ConstantOfShape) of model 'squared' would have 4000000 elements, over the limit",
        );
    }
  });
});
