// A repository load whose model fails to load answers 400 as Triton's does; a model served before goes on serving
// its old instances with the config it was loaded from, and its next load tries again. A real server, real ONNX.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { buildHead } from '../onnx/synthetic.ts';
import { call } from '../testing/testServer.ts';
import { testServerPerFile } from '../testing/testServerPerFile.ts';

const s = testServerPerFile();
const feat = Array.from({ length: 256 }, (_, i) => (i % 3) / 3);
const inferHead = () =>
  call(`${s.url}/v2/models/head/infer`, 'POST', {
    inputs: [{ name: 'feat', datatype: 'FP32', shape: [1, 256], data: feat }],
  });
const load = (name: string) => call(`${s.url}/v2/repository/models/${name}/load`, 'POST');
const state = async (name: string) =>
  ((await call(`${s.url}/v2/repository/index`, 'POST')).json as { name: string; state: string }[]).find(
    (m) => m.name === name,
  )?.state;
const delay = async () =>
  (await call(`${s.url}/v2/models/head/config`)).json.dynamic_batching.max_queue_delay_microseconds;

describe('a load whose model fails', () => {
  it('a served model keeps serving as it was loaded; the load answers 400; the next load tries again', async () => {
    const before = await inferHead();
    expect(before.status).toBe(200);
    const config = join(s.repo, 'head', 'config.pbtxt');
    writeFileSync(config, readFileSync(config, 'utf8').replace('delay_microseconds: 100', 'delay_microseconds: 250'));
    writeFileSync(join(s.repo, 'head', '1', 'model.onnx'), 'not an onnx model');

    const failed = await load('head');
    expect(failed.status).toBe(400);
    expect(failed.json.error).toMatch(/^load failed for model 'head': model 'head' failed to load: /);
    expect((await call(`${s.url}/v2/models/head/ready`)).status).toBe(200);
    expect(await state('head')).toBe('READY');
    expect(await delay()).toBe(100);
    const after = await inferHead();
    expect([after.status, after.json.outputs[0].data]).toEqual([200, before.json.outputs[0].data]);

    writeFileSync(join(s.repo, 'head', '1', 'model.onnx'), buildHead());
    expect((await load('head')).status).toBe(200);
    expect(await delay()).toBe(250);
    expect((await inferHead()).status).toBe(200);
  });

  it('a model served by nothing before is unavailable, with why', async () => {
    mkdirSync(join(s.repo, 'broken', '1'), { recursive: true });
    writeFileSync(
      join(s.repo, 'broken', 'config.pbtxt'),
      readFileSync(join(s.repo, 'head', 'config.pbtxt'), 'utf8').replace('"head"', '"broken"'),
    );
    writeFileSync(join(s.repo, 'broken', '1', 'model.onnx'), 'not an onnx model');
    const failed = await load('broken');
    expect([failed.status, failed.json.error]).toEqual([400, expect.stringMatching(/^load failed for model 'broken'/)]);
    expect((await call(`${s.url}/v2/models/broken/ready`)).status).toBe(400);
    expect(await state('broken')).toBe('UNAVAILABLE');
  });
});
