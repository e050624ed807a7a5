// gRPC RepositoryModelUnload/Load, ModelStatistics by version, and the helper models of a saved graph, with
// the repo's grpc-js test client against a real server; the unloaded set is the one HTTP reads too.
import { status } from '@grpc/grpc-js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { forkGraph } from '../testing/forkGraph.ts';
import { call } from '../testing/testServer.ts';
import type { TestClient } from '../testing/grpcTestClient.ts';
import { grpcFailure, f32Bytes, f32Values } from '../testing/grpcTestClient.ts';
import { startGrpcTestServer, type GrpcTestServer } from '../testing/grpcTestServer.ts';

let t: GrpcTestServer;
let s: GrpcTestServer['s'];
let c: TestClient;
beforeAll(async () => {
  process.env.STUDIO_PYTHON ||= '/usr/bin/python3';
  t = await startGrpcTestServer();
  ({ s, c } = t);
  expect((await call(`${s.url}/api/graphs/fork`, 'PUT', forkGraph('fork'))).status).toBe(200);
}, 60_000);
afterAll(() => t?.close());

const feat = Array.from({ length: 256 }, (_, i) => (i % 9) / 9);
const headInfer = () =>
  c.call('ModelInfer', {
    model_name: 'head',
    inputs: [{ name: 'feat', datatype: 'FP32', shape: [1, 256] }],
    raw_input_contents: [f32Bytes(feat)],
  });
const indexEntry = async (name: string) =>
  ((await c.call('RepositoryIndex', {})).models as { name: string }[]).find((m) => m.name === name);

describe('gRPC model repository', () => {
  it('RepositoryModelUnload: ModelReady false, index UNAVAILABLE "unloaded", ModelInfer NOT_FOUND; HTTP sees the same; Load brings it back', async () => {
    expect(await c.call('RepositoryModelUnload', { model_name: 'head' })).toEqual({});
    expect(await c.call('ModelReady', { name: 'head' })).toEqual({ ready: false });
    expect((await call(`${s.url}/v2/models/head/ready`)).status).toBe(400);
    expect(await indexEntry('head')).toEqual({ name: 'head', version: '1', state: 'UNAVAILABLE', reason: 'unloaded' });
    expect(await grpcFailure(headInfer())).toEqual({
      code: status.NOT_FOUND,
      details: "Request for unknown model: 'head' has no available versions",
    });
    expect((await grpcFailure(c.call('ModelStatistics', { name: 'head' }))).code).toBe(status.NOT_FOUND);
    expect(
      (await c.call('RepositoryIndex', { ready: true })).models.map((m: { name: string }) => m.name),
    ).not.toContain('head');
    expect(await c.call('RepositoryModelLoad', { model_name: 'head' })).toEqual({});
    expect(await c.call('ModelReady', { name: 'head' })).toEqual({ ready: true });
    expect(f32Values((await headInfer()).raw_output_contents[0])).toHaveLength(16);
  });

  it('an unknown model and a load carrying its own config are refused, saying why', async () => {
    expect(await grpcFailure(c.call('RepositoryModelUnload', { model_name: 'nope' }))).toEqual({
      code: status.NOT_FOUND,
      details: "failed to unload 'nope': the repository has no model or saved graph 'nope'",
    });
    const withConfig = await grpcFailure(
      c.call('RepositoryModelLoad', { model_name: 'head', parameters: { config: { string_param: '{}' } } }),
    );
    expect(withConfig.code).toBe(status.INVALID_ARGUMENT);
    expect(withConfig.details).toMatch(/^load of 'head' with config is not supported/);
  });

  it('ModelStatistics by version, in the same form as HTTP', async () => {
    await headInfer();
    const [head] = (await c.call('ModelStatistics', { name: 'head', version: '1' })).model_stats;
    expect(head).toMatchObject({ name: 'head', version: '1' });
    expect(Number(head.inference_stats.success.count)).toBeGreaterThanOrEqual(1);
    const http = (await call(`${s.url}/v2/models/head/versions/1/stats`)).json.model_stats[0];
    expect(Number(head.inference_count)).toBe(http.inference_count);
    expect((await grpcFailure(c.call('ModelStatistics', { name: 'head', version: '4' }))).code).toBe(status.NOT_FOUND);
  });
});

describe('gRPC helper models of a saved graph', () => {
  it('ModelReady, ModelMetadata and ModelConfig answer for the router the compiler generates', async () => {
    expect(await c.call('ModelReady', { name: 'fork_share' })).toEqual({ ready: true });
    const meta = await c.call('ModelMetadata', { name: 'fork_share' });
    expect(meta).toMatchObject({ name: 'fork_share', versions: ['1'], platform: 'python' });
    expect(meta.outputs.map((o: { name: string; shape: string[] }) => [o.name, o.shape])).toEqual([
      ['out_0', ['-1', '256']],
      ['out_1', ['-1', '256']],
    ]);
    const { config } = await c.call('ModelConfig', { name: 'fork_share' });
    expect(config).toMatchObject({
      name: 'fork_share',
      backend: 'python',
      instance_group: [{ name: 'fork_share_0', kind: 'KIND_CPU', count: 1 }],
    });
    expect(await indexEntry('fork_share')).toEqual({ name: 'fork_share', version: '1', state: 'READY', reason: '' });
  });

  it('ModelInfer runs its generated model.py in python3', async () => {
    const r = await c.call('ModelInfer', {
      model_name: 'fork_share',
      inputs: [{ name: 'in', datatype: 'FP32', shape: [1, 256] }],
      raw_input_contents: [f32Bytes(feat)],
    });
    expect(r.outputs.map((o: { name: string }) => o.name).sort()).toEqual(['out_0', 'out_1']);
    for (const raw of r.raw_output_contents) expect(f32Values(raw)).toEqual(Array.from(new Float32Array(feat)));
  });
});
