// Triton's statistics and model repository extensions over HTTP, the helper models a saved graph's steps
// compile to (served like any model; inference runs their generated model.py in python3), and the
// extensions the server metadata names. A real server over the test repository.
import { readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { forkGraph } from '../testing/forkGraph.ts';
import { call, startTestServer } from '../testing/testServer.ts';
import { HTTP_EXTENSIONS } from './routes/kserve.ts';

let s: Awaited<ReturnType<typeof startTestServer>>;
beforeAll(async () => {
  // The generated model.py needs numpy: Debian's python3 has it (the one on PATH may not).
  process.env.STUDIO_PYTHON ||= '/usr/bin/python3';
  s = await startTestServer();
  expect((await call(`${s.url}/api/graphs/fork`, 'PUT', forkGraph('fork'))).status).toBe(200);
}, 60_000);
afterAll(async () => s?.close());

const feat = Array.from({ length: 256 }, (_, i) => (i % 7) / 7);
const inferHead = () =>
  call(`${s.url}/v2/models/head/infer`, 'POST', {
    inputs: [{ name: 'feat', datatype: 'FP32', shape: [1, 256], data: feat }],
  });
const index = async () =>
  (await call(`${s.url}/v2/repository/index`, 'POST')).json as {
    name: string;
    version: string;
    state: string;
    reason?: string;
  }[];

describe('server metadata', () => {
  it('names exactly the extensions the HTTP endpoint serves, and each one answers', async () => {
    const meta = (await call(`${s.url}/v2`)).json;
    expect(meta.extensions).toEqual([
      'classification',
      'model_configuration',
      'model_repository',
      'statistics',
      'sequence',
      'binary_tensor_data',
      'parameters',
      'generate',
      'system_shared_memory',
      'logging',
      'trace',
      'schedule_policy',
    ]);
    expect(meta.extensions).toEqual(HTTP_EXTENSIONS);
    expect((await call(`${s.url}/v2/systemsharedmemory/status`)).json).toEqual([]);
    expect((await call(`${s.url}/v2/logging`)).json).toMatchObject({ log_verbose_level: 0 });
    expect((await call(`${s.url}/v2/models/head/config`)).status).toBe(200);
    expect((await call(`${s.url}/v2/repository/index`, 'POST')).status).toBe(200);
    expect((await call(`${s.url}/v2/models/stats`)).status).toBe(200);
    const generated = await call(`${s.url}/v2/models/head/generate`, 'POST', { feat });
    expect([generated.status, generated.json.logits.length]).toEqual([200, 16]);
    const classified = await call(`${s.url}/v2/models/head/infer`, 'POST', {
      inputs: [{ name: 'feat', datatype: 'FP32', shape: [1, 256], data: feat }],
      outputs: [{ name: 'logits', parameters: { classification: 1 } }],
    });
    expect([classified.status, classified.json.outputs[0].datatype]).toEqual([200, 'BYTES']);
  });
});

describe('statistics extension', () => {
  it("a model's stats are Triton's JSON, counted from the engine", async () => {
    const before = Date.now();
    for (let i = 0; i < 2; i++) expect((await inferHead()).status).toBe(200);
    const r = await call(`${s.url}/v2/models/head/stats`);
    expect(r.status).toBe(200);
    const [head] = r.json.model_stats;
    expect(Object.keys(head).sort()).toEqual([
      'batch_stats',
      'execution_count',
      'inference_count',
      'inference_stats',
      'last_inference',
      'memory_usage',
      'name',
      'response_stats',
      'version',
    ]);
    expect(head).toMatchObject({ name: 'head', version: '1' });
    expect(head.inference_count).toBeGreaterThanOrEqual(2);
    expect(head.last_inference).toBeGreaterThanOrEqual(before);
    expect(head.last_inference).toBeLessThanOrEqual(Date.now());
    expect((await call(`${s.url}/v2/models/ghost/stats`)).json.model_stats[0].last_inference).toBe(0);
    expect(head.execution_count).toBeGreaterThanOrEqual(1);
    expect(Object.keys(head.inference_stats)).toEqual([
      'success',
      'fail',
      'queue',
      'compute_input',
      'compute_infer',
      'compute_output',
      'cache_hit',
      'cache_miss',
    ]);
    expect(head.inference_stats.success.count).toBeGreaterThanOrEqual(2);
    expect(head.inference_stats.compute_infer.ns).toBeGreaterThan(0);
    // The hand-over to the model's worker and back: Triton's compute input and output.
    expect(head.inference_stats.compute_input.ns).toBeGreaterThan(0);
    expect(head.inference_stats.compute_output.ns).toBeGreaterThan(0);
    const { success, queue, compute_input, compute_infer, compute_output } = head.inference_stats;
    expect(success.ns).toBe(queue.ns + compute_input.ns + compute_infer.ns + compute_output.ns);
    const one = head.batch_stats.find((b: { batch_size: number }) => b.batch_size === 1);
    expect(one?.compute_infer.count).toBeGreaterThanOrEqual(1);
    // Each batch size's executions carry their compute times, which add up to the model's.
    for (const k of ['compute_input', 'compute_infer', 'compute_output'] as const) {
      expect(one[k].ns).toBeGreaterThan(0);
      expect(head.batch_stats.reduce((n: number, b: Record<string, { ns: number }>) => n + b[k]!.ns, 0)).toBe(
        head.inference_stats[k].ns,
      );
    }
  });

  it('by version, for every ready model, and 404 for an unknown model or version', async () => {
    expect((await call(`${s.url}/v2/models/head/versions/1/stats`)).json.model_stats[0]).toMatchObject({
      name: 'head',
      version: '1',
    });
    const all = (await call(`${s.url}/v2/models/stats`)).json.model_stats.map((m: { name: string }) => m.name);
    expect(all).toEqual(expect.arrayContaining(['head', 'pipe', 'fork', 'fork_share']));
    expect(all).not.toContain('bad');
    const unknown = await call(`${s.url}/v2/models/nope/stats`);
    expect([unknown.status, unknown.json]).toEqual([404, { error: "Request for unknown model: 'nope' is not found" }]);
    expect((await call(`${s.url}/v2/models/head/versions/3/stats`)).status).toBe(404);
  });
});

describe('helper models of a saved graph', () => {
  it('are ready, with metadata, their compiled config, and a place in the repository index', async () => {
    expect((await call(`${s.url}/v2/models/fork_share/ready`)).status).toBe(200);
    expect((await call(`${s.url}/v2/models/fork_share`)).json).toEqual({
      name: 'fork_share',
      versions: ['1'],
      platform: 'python',
      inputs: [{ name: 'in', datatype: 'FP32', shape: [-1, 256] }],
      outputs: [
        { name: 'out_0', datatype: 'FP32', shape: [-1, 256] },
        { name: 'out_1', datatype: 'FP32', shape: [-1, 256] },
      ],
    });
    const config = (await call(`${s.url}/v2/models/fork_share/config`)).json;
    expect(config).toMatchObject({
      name: 'fork_share',
      backend: 'python',
      max_batch_size: 0,
      instance_group: [{ name: 'fork_share_0', kind: 'KIND_CPU', count: 1 }],
    });
    expect(config.parameters.ensemble_studio.string_value).toContain('"router"');
    expect((await index()).find((m) => m.name === 'fork_share')).toEqual({
      name: 'fork_share',
      version: '1',
      state: 'READY',
    });
    const ready = (await call(`${s.url}/v2/repository/index`, 'POST', { ready: true })).json as { name: string }[];
    expect(ready.map((m) => m.name)).toContain('fork_share');
    expect(ready.map((m) => m.name)).not.toContain('bad');
  });

  it('inference runs the generated model.py: the copy router returns its input on every output', async () => {
    const r = await call(`${s.url}/v2/models/fork_share/infer`, 'POST', {
      inputs: [{ name: 'in', datatype: 'FP32', shape: [1, 256], data: feat }],
    });
    expect(r.status).toBe(200);
    expect(r.json.model_name).toBe('fork_share');
    for (const name of ['out_0', 'out_1']) {
      const out = r.json.outputs.find((o: { name: string }) => o.name === name);
      expect(out.shape).toEqual([1, 256]);
      expect(out.data).toEqual(Array.from(new Float32Array(feat)));
    }
    const wrong = await call(`${s.url}/v2/models/fork_share/infer`, 'POST', {
      inputs: [{ name: 'x', datatype: 'FP32', shape: [1, 256], data: feat }],
    });
    expect([wrong.status, wrong.json.error]).toEqual([400, "unexpected inference input 'x' for model 'fork_share'"]);
  });
});

describe('model repository extension: load and unload', () => {
  it('unload: not ready, UNAVAILABLE "unloaded", inference refused as Triton refuses it; graphs using it are not ready; load brings it back', async () => {
    expect((await call(`${s.url}/v2/repository/models/head/unload`, 'POST')).status).toBe(200);
    expect((await call(`${s.url}/v2/models/head/ready`)).status).toBe(400);
    expect((await index()).find((m) => m.name === 'head')).toEqual({
      name: 'head',
      version: '1',
      state: 'UNAVAILABLE',
      reason: 'unloaded',
    });
    const refused = await inferHead();
    expect([refused.status, refused.json]).toEqual([
      404,
      { error: "Request for unknown model: 'head' has no available versions" },
    ]);
    expect((await call(`${s.url}/v2/models/head`)).status).toBe(404);
    expect((await call(`${s.url}/v2/models/head/stats`)).status).toBe(404);
    expect(
      (await call(`${s.url}/v2/models/stats`)).json.model_stats.map((m: { name: string }) => m.name),
    ).not.toContain('head');
    expect((await call(`${s.url}/v2/models/pipe/ready`)).status).toBe(400);
    expect((await index()).find((m) => m.name === 'pipe')).toMatchObject({
      state: 'UNAVAILABLE',
      reason: "graph 'pipe' cannot run: model 'head' is unloaded",
    });
    expect((await call(`${s.url}/v2/repository/models/head/load`, 'POST', {})).status).toBe(200);
    expect((await call(`${s.url}/v2/models/head/ready`)).status).toBe(200);
    expect((await call(`${s.url}/v2/models/pipe/ready`)).status).toBe(200);
    expect((await inferHead()).json.outputs[0].data).toHaveLength(16);
  });

  it('load re-reads an edited model config and an edited graph from disk, restarting only what changed', async () => {
    const engine = s.studio.engine;
    const coldStarts = () =>
      Object.fromEntries(Object.entries(engine.health().models).map(([m, h]) => [m, h.coldStartMs]));
    const before = coldStarts();
    const path = join(s.repo, 'head', 'config.pbtxt');
    writeFileSync(
      path,
      readFileSync(path, 'utf8').replace('max_queue_delay_microseconds: 100', 'max_queue_delay_microseconds: 250'),
    );
    expect((await call(`${s.url}/v2/repository/models/head/load`, 'POST')).status).toBe(200);
    expect((await call(`${s.url}/v2/models/head/config`)).json.dynamic_batching.max_queue_delay_microseconds).toBe(250);
    // The same engine; every other model's runtime is the one loaded before (its cold start was not measured again).
    expect(s.studio.engine).toBe(engine);
    const after = coldStarts();
    expect(after.head).not.toBe(before.head);
    expect(Object.keys(before).length).toBeGreaterThan(2);
    for (const m of Object.keys(before)) if (m !== 'head') expect([m, after[m]]).toEqual([m, before[m]]);
    writeFileSync(join(s.repo, 'fork', 'studio.json'), JSON.stringify(forkGraph('fork', 3)));
    expect((await call(`${s.url}/v2/repository/models/fork/load`, 'POST')).status).toBe(200);
    expect((await call(`${s.url}/v2/models/fork_share`)).json.outputs.map((o: { name: string }) => o.name)).toEqual([
      'out_0',
      'out_1',
      'out_2',
    ]);
  });

  it('loads asked for at once each answer 200; loads of one model run one after another (as Triton queues them)', async () => {
    const loads = await Promise.all(
      ['head', 'fork', 'head', 'pipe'].map((m) => call(`${s.url}/v2/repository/models/${m}/load`, 'POST')),
    );
    expect(loads.map((r) => r.status)).toEqual([200, 200, 200, 200]);
    expect((await inferHead()).json.outputs[0].data).toHaveLength(16);
    // A flood of loads of one model joins the one waiting: one load running, at most one more after it.
    const engine = s.studio.engine;
    const reload = engine.reload.bind(engine);
    let reloads = 0;
    engine.reload = (repo, models) => (reloads++, reload(repo, models));
    try {
      const flood = await Promise.all(
        Array.from({ length: 20 }, () => call(`${s.url}/v2/repository/models/head/load`, 'POST')),
      );
      expect(flood.every((r) => r.status === 200)).toBe(true);
      expect(reloads).toBeLessThanOrEqual(2);
    } finally {
      engine.reload = reload;
    }
  });

  it('a load that could not read the repository leaves the next load of that model to read it again', async () => {
    const away = `${s.repo}-away`;
    renameSync(s.repo, away);
    try {
      const failed = await call(`${s.url}/v2/repository/models/head/load`, 'POST');
      expect([failed.status, failed.json.error]).toEqual([400, `cannot open repository "${s.repo}": ENOENT`]);
    } finally {
      renameSync(away, s.repo);
    }
    expect((await call(`${s.url}/v2/repository/models/head/load`, 'POST')).status).toBe(200);
  });

  it('refuses an unknown model, a malformed body, and a load that carries its own config, saying why', async () => {
    const unload = await call(`${s.url}/v2/repository/models/nope/unload`, 'POST');
    expect([unload.status, unload.json]).toEqual([
      404,
      { error: "failed to unload 'nope': the repository has no model or saved graph 'nope'" },
    ]);
    // Refused without re-reading the repository: that would restart every model (the engine stays the same).
    const engine = s.studio.engine;
    for (const name of ['nope', '__proto__', '..%2F..%2Fetc']) {
      const load = await call(`${s.url}/v2/repository/models/${name}/load`, 'POST');
      expect([load.status, load.json.error]).toEqual([
        404,
        `failed to load '${decodeURIComponent(name)}', failed to poll from model repository: it has no model or saved graph '${decodeURIComponent(name)}'`,
      ]);
    }
    expect(s.studio.engine).toBe(engine);
    expect((await call(`${s.url}/v2/repository/models/head/load`, 'POST', '{"parameters":')).json.error).toMatch(
      /^the request body is not JSON/,
    );
    const withConfig = await call(`${s.url}/v2/repository/models/head/load`, 'POST', { parameters: { config: '{}' } });
    expect([withConfig.status, withConfig.json.error]).toEqual([
      400,
      "load of 'head' with config is not supported: the studio loads models from its repository on disk (edit the files, then load)",
    ]);
  });
});
