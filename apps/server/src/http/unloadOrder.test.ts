// Triton's order for a load and an unload of the same model, and its unload_dependents, through the real server
// (HTTP and gRPC; a real python3 stub whose `initialize` takes a while, real onnxruntime for the ensemble's steps).
import { status } from '@grpc/grpc-js';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { grpcFailure } from '../testing/grpcTestClient.ts';
import { startGrpcTestServer, type GrpcTestServer } from '../testing/grpcTestServer.ts';
import { call } from '../testing/testServer.ts';

process.env.STUDIO_PYTHON ||= '/usr/bin/python3';

let t: GrpcTestServer;
beforeAll(async () => {
  t = await startGrpcTestServer();
  // Its `initialize` marks that it began, then takes a second: long enough for an unload to come meanwhile.
  const dir = join(t.s.repo, 'slow_init');
  mkdirSync(join(dir, '1'), { recursive: true });
  writeFileSync(
    join(dir, 'config.pbtxt'),
    `name: "slow_init"\nbackend: "python"\ninput [ { name: "X" data_type: TYPE_FP32 dims: [ 1 ] } ]\noutput [ { name: "Y" data_type: TYPE_FP32 dims: [ 1 ] } ]\n`,
  );
  writeFileSync(
    join(dir, '1', 'model.py'),
    `import os, time
import triton_python_backend_utils as pb_utils

class TritonPythonModel:
    def initialize(self, args):
        open(os.path.join(args["model_repository"], "began"), "w").close()
        time.sleep(1)

    def execute(self, requests):
        return [pb_utils.InferenceResponse([pb_utils.Tensor("Y", pb_utils.get_input_tensor_by_name(r, "X").as_numpy())])
                for r in requests]
`,
  );
}, 60_000);
afterAll(() => t?.close());

const repo = (model: string, action: 'load' | 'unload', body?: unknown) =>
  call(`${t.s.url}/v2/repository/models/${model}/${action}`, 'POST', body);
const ready = async (model: string) => (await call(`${t.s.url}/v2/models/${model}/ready`)).status === 200;
const unloadDependents = (value: unknown) => ({ parameters: { unload_dependents: value } });

describe('a load and an unload of the same model, in the order they came (as Triton)', () => {
  it('an unload asked while a load runs waits for it: the load answers 200, then the unload, and it ends unloaded', async () => {
    const began = join(t.s.repo, 'slow_init', 'began');
    const answered: string[] = [];
    const load = repo('slow_init', 'load').then((r) => (answered.push('load'), r));
    while (!existsSync(began)) await new Promise((r) => setTimeout(r, 20));
    const unload = repo('slow_init', 'unload').then((r) => (answered.push('unload'), r));
    expect([(await load).status, (await load).json]).toEqual([200, undefined]);
    expect((await unload).status).toBe(200);
    expect(answered).toEqual(['load', 'unload']);
    expect(await ready('slow_init')).toBe(false);
    const index = (await call(`${t.s.url}/v2/repository/index`, 'POST')).json as { name: string }[];
    expect(index.find((m) => m.name === 'slow_init')).toMatchObject({ state: 'UNAVAILABLE', reason: 'unloaded' });
  });

  it('a load asked before an unload, while another load of the model runs, loads too; one asked after comes after', async () => {
    const first = repo('slow_init', 'load');
    const queued = repo('slow_init', 'load');
    const unload = t.c.call('RepositoryModelUnload', { model_name: 'slow_init' });
    const after = t.c.call('RepositoryModelLoad', { model_name: 'slow_init' });
    expect([(await first).status, (await queued).status]).toEqual([200, 200]);
    expect(await unload).toEqual({});
    expect(await after).toEqual({});
    expect(await ready('slow_init')).toBe(true);
  });
});

describe('unload_dependents', () => {
  it('leaves composing models loaded at start or by name; takes those an ensemble load brought (HTTP)', async () => {
    expect((await repo('pipe', 'unload', unloadDependents(true))).status).toBe(200);
    expect([await ready('pipe'), await ready('extractor'), await ready('head')]).toEqual([false, true, true]);
    // head unloaded, then brought back by pipe's load: not loaded by name.
    expect((await repo('head', 'unload')).status).toBe(200);
    expect((await repo('pipe', 'load')).status).toBe(200);
    expect([await ready('pipe'), await ready('head')]).toEqual([true, true]);
    // Triton's HTTP server lets the unload's own status replace the error of a value that is not a boolean.
    for (const value of ['yes', 1, null]) {
      expect((await repo('pipe', 'unload', unloadDependents(value))).status).toBe(200);
      expect([await ready('pipe'), await ready('head')]).toEqual([false, true]);
      expect((await repo('pipe', 'load')).status).toBe(200);
    }
    expect((await repo('pipe', 'unload', unloadDependents(true))).status).toBe(200);
    expect([await ready('pipe'), await ready('extractor'), await ready('head')]).toEqual([false, true, false]);
    // Loaded by name, head stays with the next unload of pipe.
    expect((await repo('head', 'load')).status).toBe(200);
    expect((await repo('pipe', 'load')).status).toBe(200);
    expect((await repo('pipe', 'unload', unloadDependents(true))).status).toBe(200);
    expect([await ready('pipe'), await ready('head')]).toEqual([false, true]);
    expect((await repo('pipe', 'load')).status).toBe(200);
  });

  it('over gRPC: a bool_param true takes them; any other type is refused in Triton words', async () => {
    const { c } = t;
    expect(await c.call('RepositoryModelUnload', { model_name: 'head' })).toEqual({});
    expect(await c.call('RepositoryModelLoad', { model_name: 'pipe' })).toEqual({});
    expect(
      await grpcFailure(
        c.call('RepositoryModelUnload', { model_name: 'pipe', parameters: { unload_dependents: { int64_param: 1 } } }),
      ),
    ).toEqual({
      code: status.INVALID_ARGUMENT,
      details: "invalid value type for 'unload_dependents' parameter, expected bool_param.",
    });
    expect([await ready('pipe'), await ready('head')]).toEqual([true, true]);
    expect(
      await c.call('RepositoryModelUnload', {
        model_name: 'pipe',
        parameters: { unload_dependents: { bool_param: true } },
      }),
    ).toEqual({});
    expect([await ready('pipe'), await ready('extractor'), await ready('head')]).toEqual([false, true, false]);
    expect(await c.call('RepositoryModelLoad', { model_name: 'pipe' })).toEqual({});
  });
});
