// A repository load of a Python model whose `initialize` never returns, through the real server (HTTP and gRPC,
// real python3 stubs): it holds only the loads and unloads of that model (an unload waits for the loads asked
// before it, as Triton's does). Loads and unloads of other models, an import, inference on other models and the
// server's shutdown all answer meanwhile; an import or the shutdown ends it, and the stuck process is killed.
import { cpSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGrpcTestServer, type GrpcTestServer } from '../testing/grpcTestServer.ts';
import { makeTestRepository } from '../testing/testRepository.ts';
import { removeTempDir, tempDir } from '../testing/tempDir.ts';
import { call, startTestServer } from '../testing/testServer.ts';
import { processAlive } from '../testing/processAlive.ts';

// The stub needs numpy: Debian's python3 has it (the one on PATH may not).
process.env.STUDIO_PYTHON ||= '/usr/bin/python3';

/** Writes Python model `name` (X FP32 [1] → Y FP32 [1]) into `repo` with `source` as its model.py. */
function writePythonModel(repo: string, name: string, source: string): void {
  mkdirSync(join(repo, name, '1'), { recursive: true });
  writeFileSync(
    join(repo, name, 'config.pbtxt'),
    `name: "${name}"\nbackend: "python"\ninput [ { name: "X" data_type: TYPE_FP32 dims: [ 1 ] } ]\noutput [ { name: "Y" data_type: TYPE_FP32 dims: [ 1 ] } ]\n`,
  );
  writeFileSync(join(repo, name, '1', 'model.py'), source);
}

/** Writes model `name` into `repo`: its `initialize` notes its pid in `<repo>/<name>/initialize.pid`, then sleeps for ever. */
function writeStuckModel(repo: string, name: string): string {
  writePythonModel(
    repo,
    name,
    `import os, time

class TritonPythonModel:
    def initialize(self, args):
        with open(os.path.join(args["model_repository"], "initialize.pid"), "w") as f:
            f.write(str(os.getpid()))
        while True:
            time.sleep(3600)

    def execute(self, requests):
        return []
`,
  );
  return join(repo, name, 'initialize.pid');
}

/** Writes model `name` into `repo`: Y = X + the number in `<repo>/<name>/gate`, whose `initialize` waits for that file. */
function writeGatedModel(repo: string, name: string): void {
  writePythonModel(
    repo,
    name,
    `import os, time
import triton_python_backend_utils as pb_utils

class TritonPythonModel:
    def initialize(self, args):
        with open(os.path.join(args["model_repository"], "initialize.pid"), "w") as f:
            f.write(str(os.getpid()))
        gate = os.path.join(args["model_repository"], "gate")
        while not os.path.exists(gate):
            time.sleep(0.05)
        with open(gate) as f:
            self.add = float(f.read())

    def execute(self, requests):
        return [
            pb_utils.InferenceResponse([pb_utils.Tensor("Y", pb_utils.get_input_tensor_by_name(r, "X").as_numpy() + self.add)])
            for r in requests
        ]
`,
  );
}

/** `p`, or a rejection naming `what` after `ms` (so a regression fails the test instead of hanging it). */
function within<T>(p: Promise<T>, what: string, ms = 20_000): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} did not answer within ${ms} ms`)), ms);
  });
  return Promise.race([p, late]).finally(() => clearTimeout(timer));
}

/** Polls `check` every 50 ms until it is true; rejects naming `what` after `ms`. */
async function until(check: () => boolean, what: string, ms = 20_000): Promise<void> {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** The pid a stuck model wrote once its `initialize` began. */
async function stuckPid(file: string): Promise<number> {
  await until(() => existsSync(file) && readFileSync(file, 'utf8') !== '', 'initialize to begin');
  return Number(readFileSync(file, 'utf8'));
}

const feat = Array.from({ length: 256 }, (_, i) => (i % 5) / 5);
const inferHead = (url: string) =>
  call(`${url}/v2/models/head/infer`, 'POST', {
    inputs: [{ name: 'feat', datatype: 'FP32', shape: [1, 256], data: feat }],
  });

describe('a load whose initialize never returns holds only the loads of that model', () => {
  let t: GrpcTestServer;
  let importRoot: string;
  beforeAll(async () => {
    importRoot = tempDir('stuck-import-');
    const made = makeTestRepository();
    cpSync(made, join(importRoot, 'other'), { recursive: true });
    removeTempDir(made);
    t = await startGrpcTestServer({ importRoots: [importRoot] });
  }, 60_000);
  afterAll(async () => t?.close());

  const index = async () =>
    (await call(`${t.s.url}/v2/repository/index`, 'POST')).json as { name: string; state: string; reason?: string }[];
  const load = (name: string) => call(`${t.s.url}/v2/repository/models/${name}/load`, 'POST');

  /** The stuck loads and the unload waiting for them, left for the import to end. */
  let stuck: { loads: Promise<Awaited<ReturnType<typeof load>>>[]; unload: ReturnType<typeof load>; pid: number };

  it('HTTP: loads of other models, inference and gRPC answer; the stuck model is LOADING, not ready; its unload waits', async () => {
    const { s, c } = t;
    const coldStart = () => s.studio.engine.health().models.head?.coldStartMs;
    const headBefore = coldStart();
    expect(headBefore).toBeDefined();
    // head's files change on disk too: a load of another model leaves it as it is.
    const headConfig = join(s.repo, 'head', 'config.pbtxt');
    writeFileSync(
      headConfig,
      readFileSync(headConfig, 'utf8').replace('delay_microseconds: 100', 'delay_microseconds: 250'),
    );
    const pidFile = writeStuckModel(s.repo, 'stuck');
    const stuckLoads = [load('stuck'), load('stuck'), load('stuck')];
    const pid = await stuckPid(pidFile);

    expect((await within(call(`${s.url}/v2/models/stuck/ready`), 'ready')).status).toBe(400);
    expect((await within(index(), 'the index')).find((m) => m.name === 'stuck')).toEqual({
      name: 'stuck',
      version: '1',
      state: 'LOADING',
    });
    const refused = await within(
      call(`${s.url}/v2/models/stuck/infer`, 'POST', {
        inputs: [{ name: 'X', datatype: 'FP32', shape: [1], data: [1] }],
      }),
      'inference on the stuck model',
    );
    expect(refused.status).toBeGreaterThanOrEqual(400);
    expect(refused.json.error).toContain("'stuck' is loading");

    expect((await within(load('extractor'), 'a load of another model')).status).toBe(200);
    expect((await within(inferHead(s.url), 'inference on another model')).status).toBe(200);
    expect(coldStart()).toBe(headBefore);
    expect((await call(`${s.url}/v2/models/head/config`)).json.dynamic_batching.max_queue_delay_microseconds).toBe(100);
    // An ensemble's load takes its composing models that changed on disk (as Triton's does): head among them.
    await within(c.call('RepositoryModelLoad', { model_name: 'pipe' }), 'a gRPC load of another model');
    expect(coldStart()).not.toBe(headBefore);
    expect((await call(`${s.url}/v2/models/head/config`)).json.dynamic_batching.max_queue_delay_microseconds).toBe(250);
    const grpcIndex = await within(c.call('RepositoryIndex', {}), 'the gRPC index');
    expect(grpcIndex.models.find((m: { name: string }) => m.name === 'stuck')).toMatchObject({ state: 'LOADING' });
    expect(processAlive(pid)).toBe(true);

    // As Triton's, the unload waits for the load asked before it; everything else goes on answering.
    const unload = call(`${s.url}/v2/repository/models/stuck/unload`, 'POST');
    let unloaded = false;
    void unload.then(() => (unloaded = true));
    expect((await within(load('extractor'), 'a load of another model during the unload')).status).toBe(200);
    expect((await within(inferHead(s.url), 'inference during the unload')).status).toBe(200);
    expect(unloaded).toBe(false);
    expect(processAlive(pid)).toBe(true);
    expect((await index()).find((m) => m.name === 'stuck')).toMatchObject({ state: 'LOADING' });
    stuck = { loads: stuckLoads, unload, pid };
  }, 90_000);

  it("a reload keeps the model's old instances serving until its new ones have loaded", async () => {
    const { s } = t;
    const dir = join(s.repo, 'gated');
    writeGatedModel(s.repo, 'gated');
    writeFileSync(join(dir, 'gate'), '1');
    expect((await within(load('gated'), 'the first load')).status).toBe(200);
    const infer = async () => {
      const r = await within(
        call(`${s.url}/v2/models/gated/infer`, 'POST', {
          inputs: [{ name: 'X', datatype: 'FP32', shape: [1], data: [1] }],
        }),
        'inference on the model being reloaded',
      );
      expect(r.status).toBe(200);
      return r.json.outputs[0].data[0] as number;
    };
    expect(await infer()).toBe(2);
    const first = Number(readFileSync(join(dir, 'initialize.pid'), 'utf8'));

    rmSync(join(dir, 'gate'));
    const reload = load('gated');
    await until(() => Number(readFileSync(join(dir, 'initialize.pid'), 'utf8')) !== first, 'the new initialize');
    expect(await infer()).toBe(2);
    expect((await call(`${s.url}/v2/models/gated/ready`)).status).toBe(200);
    expect((await index()).find((m) => m.name === 'gated')).toMatchObject({ state: 'READY' });

    writeFileSync(join(dir, 'gate'), '2');
    expect((await within(reload, 'the reload')).status).toBe(200);
    expect(await infer()).toBe(3);
    await until(() => !processAlive(first), 'the old python process to end');
  }, 90_000);

  it('gRPC: an import answers while loads and an unload of the stuck model wait, and ends them', async () => {
    const { s, c } = t;
    // A gRPC unload of the stuck model waits behind the HTTP one; another model's answers at once.
    const grpcUnload = c.call('RepositoryModelUnload', { model_name: 'stuck' });
    await within(c.call('RepositoryModelUnload', { model_name: 'extractor' }), 'a gRPC unload of another model');
    const imported = await within(
      call(`${s.url}/api/import`, 'POST', { dir: join(importRoot, 'other') }),
      'the import',
    );
    expect(imported.status).toBe(200);
    // The replaced engine closes its models, the stuck one included: its loads and unloads answer, its process is gone.
    const [first, ...joined] = await within(Promise.all(stuck.loads), 'the loads of the stuck model');
    expect([first!.status, first!.json.error]).toEqual([
      409,
      "failed to load 'stuck': another repository was opened while it was loading",
    ]);
    for (const r of joined) expect(r.status).toBeGreaterThanOrEqual(400);
    expect((await within(stuck.unload, 'the HTTP unload of the stuck model')).status).toBe(200);
    await within(grpcUnload, 'the gRPC unload of the stuck model');
    await until(() => !processAlive(stuck.pid), 'the stuck python process to end');
    expect((await within(inferHead(s.url), 'inference after the import')).status).toBe(200);
  }, 90_000);
});

describe('a stuck load does not hold the shutdown', () => {
  it('a load of another model answers; closing the server answers the stuck load and kills its process', async () => {
    const s = await startTestServer();
    let closed = false;
    try {
      const pidFile = writeStuckModel(s.repo, 'stuck');
      const stuckLoad = call(`${s.url}/v2/repository/models/stuck/load`, 'POST').catch((err: Error) => err);
      const pid = await stuckPid(pidFile);
      const other = await within(call(`${s.url}/v2/repository/models/head/load`, 'POST'), 'a load of another model');
      expect(other.status).toBe(200);
      await within(s.close(), 'the shutdown');
      closed = true;
      await within(stuckLoad, 'the stuck load');
      await until(() => !processAlive(pid), 'the stuck python process to end');
    } finally {
      if (!closed) await s.close();
      removeTempDir(s.repo);
    }
  }, 60_000);
});
