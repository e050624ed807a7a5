import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeTestRepository } from '../testing/testRepository.ts';
import { removeTempDir } from '../testing/tempDir.ts';
import { call, startTestServer } from '../testing/testServer.ts';

let s: Awaited<ReturnType<typeof startTestServer>>;
beforeAll(async () => {
  const repo = makeTestRepository();
  // a config that parses, over a model file onnxruntime cannot load
  writeFileSync(join(repo, 'head', '1', 'model.onnx'), 'this is not an ONNX model');
  s = await startTestServer({ repo });
});
afterAll(async () => {
  await s?.close();
  if (s) removeTempDir(s.repo);
});

describe('a model corrupted at startup is not ready anywhere', () => {
  it('the repository index, /ready and metadata agree, and the reasons name the model', async () => {
    const index = (await call(`${s.url}/v2/repository/index`, 'POST')).json as {
      name: string;
      state: string;
      reason?: string;
    }[];
    const entry = (n: string) => index.find((e) => e.name === n);
    expect(entry('head')).toMatchObject({ state: 'UNAVAILABLE', reason: expect.stringMatching(/model 'head'/) });
    expect(entry('pipe')).toMatchObject({
      state: 'UNAVAILABLE',
      reason: expect.stringMatching(/graph 'pipe' cannot run: model 'head'/),
    });
    expect(entry('extractor')).toMatchObject({ state: 'READY' });
    expect((await call(`${s.url}/v2/models/head/ready`)).status).toBe(400);
    expect((await call(`${s.url}/v2/models/pipe/ready`)).status).toBe(400);
    expect((await call(`${s.url}/v2/models/extractor/ready`)).status).toBe(200);
  });

  it('an infer on the graph says which model is at fault', async () => {
    const r = await call(`${s.url}/v2/models/pipe/infer`, 'POST', {
      inputs: [{ name: 'x', datatype: 'FP32', shape: [1, 64], data: new Array(64).fill(0) }],
    });
    expect(r.status).toBe(503);
    expect(r.json.error).toMatch(/model 'head'/);
  });

  it('/api/health counts it as a problem and /api/catalogue lists it', async () => {
    const health = (await call(`${s.url}/api/health`)).json;
    expect(health.problems).toBe(3);
    const problems = (await call(`${s.url}/api/catalogue`)).json.problems as { message: string }[];
    expect(problems.map((p) => p.message)).toContainEqual(expect.stringMatching(/^head: model 'head'/));
  });
});
