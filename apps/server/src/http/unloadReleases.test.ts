// Triton's repository unload ends the model, through the real server (HTTP and gRPC, real python3 stubs, real
// onnxruntime): the runs already on it finish, then its instances close (a Python model's `finalize` runs, its stub
// and what it forked exit; an ONNX model's sessions and workers are released). A later load starts it anew.
import { status } from '@grpc/grpc-js';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { grpcFailure, f32Bytes } from '../testing/grpcTestClient.ts';
import { startGrpcTestServer, type GrpcTestServer } from '../testing/grpcTestServer.ts';
import { processAlive } from '../testing/processAlive.ts';
import { makeTestRepository } from '../testing/testRepository.ts';
import { writePythonModels } from '../testing/pythonModels.ts';
import { call } from '../testing/testServer.ts';

// The stub needs numpy: Debian's python3 has it (the one on PATH may not).
process.env.STUDIO_PYTHON ||= '/usr/bin/python3';

/** Polls `check` every 50 ms until it is true; rejects naming `what` after `ms`. */
async function until(check: () => boolean, what: string, ms = 20_000): Promise<void> {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** The threads of this process (onnxruntime sessions run on worker threads of their own). */
const threads = () => readdirSync('/proc/self/task').length;

let t: GrpcTestServer;
let modelDir: string;
beforeAll(async () => {
  const repo = makeTestRepository();
  writePythonModels(repo, ['finalizing']);
  modelDir = join(repo, 'finalizing');
  t = await startGrpcTestServer({ repo });
}, 60_000);
afterAll(async () => t?.close());

const inferFinal = (x: number) =>
  call(`${t.s.url}/v2/models/finalizing/infer`, 'POST', {
    inputs: [{ name: 'X', datatype: 'FP32', shape: [1], data: [x] }],
  });
const finalized = () => {
  const file = join(modelDir, 'finalized');
  return existsSync(file) ? readFileSync(file, 'utf8').trim().split('\n').map(Number) : [];
};

describe('unload ends the model, after the runs already on it', () => {
  it('Python: a run in flight completes, then finalize runs and the stub and its child exit; a load starts a new stub', async () => {
    const first = await inferFinal(0);
    expect(first.status).toBe(200);
    const pid = first.json.outputs[0].data[0] as number;
    const child = Number(readFileSync(join(modelDir, 'child.pid'), 'utf8'));
    expect([processAlive(pid), processAlive(child)]).toEqual([true, true]);

    const inFlight = inferFinal(1);
    await until(() => existsSync(join(modelDir, 'executing')), 'the held execute to begin');
    expect((await call(`${t.s.url}/v2/repository/models/finalizing/unload`, 'POST')).status).toBe(200);
    const refused = await inferFinal(0);
    expect([refused.status, refused.json.error]).toEqual([
      404,
      "Request for unknown model: 'finalizing' has no available versions",
    ]);
    // The run that holds the instance keeps it: nothing is finalized under it.
    expect([finalized(), processAlive(pid)]).toEqual([[], true]);

    writeFileSync(join(modelDir, 'release'), '');
    const done = await inFlight;
    expect([done.status, done.json.outputs?.[0].data]).toEqual([200, [pid]]);
    await until(() => finalized().length > 0, "the model's finalize");
    expect(finalized()).toEqual([pid]);
    await until(() => !processAlive(pid) && !processAlive(child), 'the stub and its child to exit');

    expect((await call(`${t.s.url}/v2/repository/models/finalizing/load`, 'POST')).status).toBe(200);
    const again = await inferFinal(0);
    expect(again.status).toBe(200);
    const newPid = again.json.outputs[0].data[0] as number;
    expect(newPid).not.toBe(pid);
    expect(processAlive(newPid)).toBe(true);
    expect(finalized()).toEqual([pid]);
  });

  it('ONNX over gRPC: unload releases the sessions (not an ensemble: its steps stay), a load serves it again', async () => {
    const { c, s } = t;
    const feat = Array.from({ length: 256 }, (_, i) => (i % 9) / 9);
    const headInfer = () =>
      c.call('ModelInfer', {
        model_name: 'head',
        inputs: [{ name: 'feat', datatype: 'FP32', shape: [1, 256] }],
        raw_input_contents: [f32Bytes(feat)],
      });
    expect((await headInfer()).raw_output_contents[0]).toHaveLength(64);

    // An ensemble's unload leaves its composing models loaded, as Triton's does.
    expect(await c.call('RepositoryModelUnload', { model_name: 'pipe' })).toEqual({});
    expect(await c.call('ModelReady', { name: 'head' })).toEqual({ ready: true });
    expect(s.studio.engine.health().models.head?.state).toBe('ready');

    const before = threads();
    expect(await c.call('RepositoryModelUnload', { model_name: 'head' })).toEqual({});
    expect(s.studio.engine.health().models.head).toMatchObject({
      state: 'unavailable',
      error: "model 'head' is unloaded",
    });
    await until(() => threads() < before, "head's session workers to stop");
    expect(await grpcFailure(headInfer())).toEqual({
      code: status.NOT_FOUND,
      details: "Request for unknown model: 'head' has no available versions",
    });

    expect(await c.call('RepositoryModelLoad', { model_name: 'head' })).toEqual({});
    expect(await c.call('ModelReady', { name: 'head' })).toEqual({ ready: true });
    expect(s.studio.engine.health().models.head?.state).toBe('ready');
    expect((await headInfer()).raw_output_contents[0]).toHaveLength(64);
    // The ensemble stays unloaded until it is loaded itself.
    expect(await c.call('ModelReady', { name: 'pipe' })).toEqual({ ready: false });

    // A load of the ensemble loads a composing model that was unloaded, as Triton's does.
    expect(await c.call('RepositoryModelUnload', { model_name: 'head' })).toEqual({});
    expect(s.studio.engine.health().models.head?.state).toBe('unavailable');
    expect(await c.call('RepositoryModelLoad', { model_name: 'pipe' })).toEqual({});
    expect(await c.call('ModelReady', { name: 'pipe' })).toEqual({ ready: true });
    expect(await c.call('ModelReady', { name: 'head' })).toEqual({ ready: true });
    expect(s.studio.engine.health().models.head?.state).toBe('ready');
    expect((await headInfer()).raw_output_contents[0]).toHaveLength(64);
  });
});
