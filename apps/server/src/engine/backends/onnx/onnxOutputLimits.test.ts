import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { singleModelGraph, type Tensor } from '@ensemble-studio/core';
import { decodeImage } from '../../../io/index.ts';
import { loadRepository } from '../../../repo/loadRepository.ts';
import type { Repository } from '../../../repo/types.ts';
import { makeTestRepository } from '../../../testing/engineFixtures.ts';
import { ocrGraph } from '../../../testing/engineGraphs.ts';
import { writeExpandingOnnxModel } from '../../../testing/expandingOnnxModel.ts';
import { makeFixtures } from '../../../testing/smokeSupport.ts';
import { tempDir } from '../../../testing/tempDir.ts';
import { Engine } from '../../Engine.ts';

// An ONNX model's outputs are held to the server's tensor limits in the worker that ran the session, as a Python
// model's are in its stub: an output over them fails its run, naming the model and output, and never crosses.

const LIMITS = { maxTensorElements: 1000, maxBodyBytes: 3000 };
let repo: Repository;
let engine: Engine;
const shape = (...v: number[]): Tensor => ({
  datatype: 'INT64',
  shape: [v.length],
  data: BigInt64Array.from(v.map(BigInt)),
});
const run = (...dims: number[]) =>
  engine.run({ graph: singleModelGraph(repo.catalogue.models.expand!), inputs: { SHAPE: shape(...dims) } });

beforeAll(async () => {
  const dir = tempDir('onnx-limits-');
  writeExpandingOnnxModel(dir, 'expand');
  repo = await loadRepository(dir);
  engine = await Engine.create({ repository: repo, tensorLimits: LIMITS });
}, 60_000);
afterAll(async () => {
  await engine?.close();
});

describe('ONNX model outputs over the tensor limits', () => {
  it('an output over maxTensorElements fails its run with the model, output, count and limit', async () => {
    const over = await run(1001);
    expect(over.status).toBe('failed');
    expect(over.error?.message).toContain(
      "output 'OUT' of model 'expand' would have 1001 elements, over the limit maxTensorElements=1000",
    );
    expect(over.outputs.OUT).toBeUndefined();
  });

  it('an output within the element limit but over maxBodyBytes fails its run with its byte count', async () => {
    const over = await run(751);
    expect(over.status).toBe('failed');
    expect(over.error?.message).toContain(
      "output 'OUT' of model 'expand' has 3004 bytes, over the limit maxBodyBytes=3000",
    );
  });

  it('an output at the limits comes back, and the instance goes on serving after a refusal', async () => {
    for (const n of [750, 5000, 750]) await run(n);
    const within = await run(750);
    expect(within.status).toBe('completed');
    expect(within.outputs.OUT?.shape).toEqual([750]);
    expect((within.outputs.OUT?.data as Float32Array).every((x) => x === 0)).toBe(true);
  });

  it("a refused output's memory goes back to the system, not to the session's arena", async () => {
    const rssMb = () => process.memoryUsage.rss() / 2 ** 20;
    await run(500);
    const before = rssMb();
    // 100 M FP32 elements: onnxruntime allocates 400 MB before the check can refuse them.
    for (let i = 0; i < 2; i++) expect((await run(100_000_000)).status).toBe('failed');
    const after = await run(500);
    expect(after.error?.message).toBeUndefined();
    // Kept by the arena, it stayed: +400 MB for as long as the instance lived.
    expect(rssMb() - before).toBeLessThan(200);
  }, 60_000);

  it('requests queued on the instance behind a refusal wait for its new session, and run', async () => {
    // Large enough that each refusal's new session is still being made when the next request reaches the worker.
    const sizes = Array.from({ length: 24 }, (_, i) => (i % 3 === 0 ? 20_000_000 : 500));
    const results = await Promise.all(sizes.map((n) => run(n)));
    expect(results.map((r) => r.status)).toEqual(sizes.map((n) => (n > 1000 ? 'failed' : 'completed')));
  }, 60_000);

  it('a model step fused with ops is held to the limits too', async () => {
    const ocr = await Engine.create({ repository: makeTestRepository(['det', 'rec', 'cls']), tensorLimits: LIMITS });
    try {
      const image = decodeImage(readFileSync(makeFixtures().hello));
      const r = await ocr.run({ graph: ocrGraph(), inputs: { image } });
      expect(r.status).toBe('failed');
      expect(r.error?.message).toMatch(
        /output '[\w.]+' of model 'det' has \d+ elements, over the limit maxTensorElements=1000/,
      );
    } finally {
      await ocr.close();
    }
  }, 60_000);
});
