// The ninth independent hostile-input round, as regression cases: Python stubs that stop themselves or never finish
// `finalize`, loads and unloads of one model racing, unload_dependents, and an ONNX output whose size a request
// chooses. Each runs against a real `studio serve` with a bystander asking /v2/health/ready from a process of its own.
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { processAlive, stubsDescendingFrom } from '../../apps/server/src/testing/processAlive.ts';
import { writeExpandingOnnxModel } from '../../apps/server/src/testing/expandingOnnxModel.ts';
import { connect as connectWs } from '../../apps/server/src/testing/wsTestClient.ts';
import { copyExamples, http, spawnStudio } from '../support/server.ts';
import { tempDir } from '../support/tempDir.ts';
import { probedStudio } from './hostileProbe.ts';

/** Writes Python model `name` (X FP32 [1] → Y = X) into `repo`, with `initialize` and `finalize` doing `init`, `fin`. */
function writeModel(repo: string, name: string, init: string, fin = 'pass'): void {
  mkdirSync(join(repo, name, '1'), { recursive: true });
  writeFileSync(
    join(repo, name, 'config.pbtxt'),
    `name: "${name}"\nbackend: "python"\ninput [ { name: "X" data_type: TYPE_FP32 dims: [ 1 ] } ]\noutput [ { name: "Y" data_type: TYPE_FP32 dims: [ 1 ] } ]\ninstance_group [ { count: 1 kind: KIND_CPU } ]\n`,
  );
  writeFileSync(
    join(repo, name, '1', 'model.py'),
    `import os, signal, time
import triton_python_backend_utils as pb_utils

class TritonPythonModel:
    def initialize(self, args):
        self.dir = args["model_repository"]
        with open(os.path.join(self.dir, "pid"), "w") as f:
            f.write(str(os.getpid()))
        ${init}

    def execute(self, requests):
        return [pb_utils.InferenceResponse([pb_utils.Tensor("Y", pb_utils.get_input_tensor_by_name(r, "X").as_numpy())])
                for r in requests]

    def finalize(self):
        ${fin}
`,
  );
}

// Stopped again at once if something outside resumes it (seen once in a stress run; what resumed it was not found).
const STOPS_ITSELF = 'while True: os.kill(os.getpid(), signal.SIGSTOP)';

const { studio, probe } = probedStudio(() => {
  const repo = copyExamples({ linkModels: true });
  writeModel(repo, 'stopper', STOPS_ITSELF);
  writeModel(repo, 'never_finalizes', 'pass', 'while True: time.sleep(3600)');
  writeModel(repo, 'slow_init', 'time.sleep(1)');
  writeExpandingOnnxModel(repo, 'expand');
  return spawnStudio(repo);
});

const post = (path: string, body?: unknown) =>
  http(`${studio.url}${path}`, { method: 'POST', ...(body === undefined ? {} : { body: JSON.stringify(body) }) });
const ready = async (model: string) => (await http(`${studio.url}/v2/models/${model}/ready`)).status === 200;
const indexEntry = async (name: string) =>
  ((await post('/v2/repository/index')).json as { name: string; state: string; reason?: string }[]).find(
    (m) => m.name === name,
  );
const pidIn = (dir: string) => Number(readFileSync(join(dir, 'pid'), 'utf8'));

/** The pids of the processes whose parent is `pid` and whose command line has `what`. */
function childrenOf(pid: number, what: string): number[] {
  return readdirSync('/proc')
    .filter((d) => /^\d+$/.test(d))
    .filter((d) => {
      try {
        const stat = readFileSync(`/proc/${d}/stat`, 'utf8');
        const parent = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
        return parent === pid && readFileSync(`/proc/${d}/cmdline`, 'utf8').includes(what);
      } catch {
        return false;
      }
    })
    .map(Number);
}

describe('hostile input, ninth round', () => {
  it("a stub that stops itself in initialize fails its load with Triton's message; serve listens, the rest serve", async () => {
    const unhealthy = "Stub process 'stopper_0_0' is not healthy.";
    expect(await indexEntry('stopper')).toMatchObject({
      state: 'UNAVAILABLE',
      reason: expect.stringContaining(unhealthy),
    });
    expect(await ready('vad')).toBe(true);
    const load = await probe('a load of a model whose stub stops itself in initialize', () =>
      post('/v2/repository/models/stopper/load'),
    );
    expect([load.status, load.json]).toEqual([
      400,
      { error: `load failed for model 'stopper': model 'stopper' failed to load: ${unhealthy}` },
    ]);
    expect(processAlive(pidIn(repoOf('stopper')))).toBe(false);
  }, 60_000);

  it('a finalize that never returns: the unload answers, and the stub is killed after the close timeout', async () => {
    const pid = pidIn(repoOf('never_finalizes'));
    expect(processAlive(pid)).toBe(true);
    const unload = await probe('an unload of a model whose finalize never returns', async () => {
      const r = await post('/v2/repository/models/never_finalizes/unload');
      await expect.poll(() => processAlive(pid), { timeout: 15_000, interval: 200 }).toBe(false);
      return r;
    });
    expect(unload.status).toBe(200);
    expect((await post('/v2/repository/models/never_finalizes/load')).status).toBe(200);
  }, 60_000);

  it('a load and an unload of one model racing answer as Triton: the load finishes, then the unload', async () => {
    const [load, unload] = await probe('a load racing an unload of the same model', async () => {
      const l = post('/v2/repository/models/slow_init/load');
      await new Promise((r) => setTimeout(r, 300));
      return Promise.all([l, post('/v2/repository/models/slow_init/unload')]);
    });
    expect([load.status, unload.status]).toEqual([200, 200]);
    expect(await ready('slow_init')).toBe(false);
    expect((await post('/v2/repository/models/slow_init/load')).status).toBe(200);
    expect(await ready('slow_init')).toBe(true);
  }, 60_000);

  it("unload_dependents takes the composing models an ensemble's load brought, not those loaded at start", async () => {
    const dependents = { parameters: { unload_dependents: true } };
    expect((await post('/v2/repository/models/vad-stream/unload', dependents)).status).toBe(200);
    expect([await ready('vad-stream'), await ready('vad')]).toEqual([false, true]);
    expect((await post('/v2/repository/models/accumulator/unload')).status).toBe(200);
    expect((await post('/v2/repository/models/accumulate-stream/load')).status).toBe(200);
    expect(await ready('accumulator')).toBe(true);
    const r = await probe('an unload with unload_dependents', () =>
      post('/v2/repository/models/accumulate-stream/unload', dependents),
    );
    expect(r.status).toBe(200);
    expect([await ready('accumulate-stream'), await ready('accumulator')]).toEqual([false, false]);
    for (const m of ['vad-stream', 'accumulate-stream'])
      expect((await post(`/v2/repository/models/${m}/load`)).status).toBe(200);
  }, 60_000);

  it('an ONNX output whose size the request chooses is refused before onnxruntime makes it', async () => {
    const r = await probe('ConstantOfShape asked for 2^28 elements', () =>
      post('/v2/models/expand/infer', {
        inputs: [{ name: 'SHAPE', datatype: 'INT64', shape: [1], data: [2 ** 28] }],
      }),
    );
    expect(r.status).toBeGreaterThanOrEqual(400);
    expect(r.json.error).toContain(
      "output 'OUT' of model 'expand' would have 268435456 elements, over the limit maxTensorElements=16777216",
    );
  }, 60_000);

  it('WebSocket runs, saves and deletes of their graph and loads of it racing: each answers as it would alone', async () => {
    const doc = (await http(`${studio.url}/api/graphs/shared-features`)).json as Record<string, unknown>;
    const put = () =>
      http(`${studio.url}/api/graphs/race`, { method: 'PUT', body: JSON.stringify({ ...doc, name: 'race' }) });
    expect((await put()).status).toBe(200);
    const ws = await connectWs(studio.url);
    const outcomes = new Map<string, number>();
    const note = (what: string) => outcomes.set(what, (outcomes.get(what) ?? 0) + 1);
    ws.ws.on('message', (data: Buffer, binary: boolean) => {
      if (binary) return;
      const m = JSON.parse(String(data)) as { type: string; error?: { code: string } };
      if (m.type === 'run.completed') note('run completed');
      else if (m.type === 'run.failed' || m.type === 'error') note(`${m.type} ${m.error?.code}`);
    });
    await probe('WebSocket runs racing deletes, saves and loads of their graph', async () => {
      const end = Date.now() + 3000;
      const runs = async () => {
        for (let n = 0; Date.now() < end; n++) {
          ws.send({
            type: 'run.start',
            requestId: `r${n}`,
            graph: 'race',
            inputs: { x: { datatype: 'FP32', shape: [1, 64], data: new Array(64).fill(0.5) } },
          });
          await new Promise((r) => setTimeout(r, 5));
        }
      };
      const churn = async () => {
        while (Date.now() < end) {
          note(`DELETE ${(await http(`${studio.url}/api/graphs/race`, { method: 'DELETE' })).status}`);
          note(`PUT ${(await put()).status}`);
        }
      };
      const loads = async () => {
        while (Date.now() < end) note(`load ${(await post('/v2/repository/models/race/load')).status}`);
      };
      await Promise.all([runs(), churn(), loads()]);
      await new Promise((r) => setTimeout(r, 1000));
    });
    ws.ws.close();
    const kinds = [...outcomes.keys()];
    expect(
      kinds.filter((k) => /^(PUT|DELETE) /.test(k) && !['PUT 200', 'DELETE 204', 'DELETE 404'].includes(k)),
    ).toEqual([]);
    expect(kinds.filter((k) => / internal$|^load 5/.test(k))).toEqual([]);
    expect(outcomes.get('run completed')).toBeGreaterThan(0);
    expect((await put()).status).toBe(200);
    expect((await post('/v2/repository/models/race/load')).status).toBe(200);
  }, 60_000);

  it('SIGTERM ends the server and every stub, a finalize that never returns among them', async () => {
    expect((await post('/v2/repository/models/stopper/load')).status).toBe(400);
    const stubs = stubsDescendingFrom(studio.child.pid!);
    expect(stubs).toContain(pidIn(repoOf('never_finalizes')));
    studio.child.kill('SIGTERM');
    const { code } = await studio.exited;
    expect(code).toBe(0);
    await expect.poll(() => stubs.filter(processAlive), { timeout: 10_000 }).toEqual([]);
  }, 60_000);
});

/** The directory of model `name` in the probed studio's repository (from its command line). */
function repoOf(name: string): string {
  const args = readFileSync(`/proc/${studio.child.pid}/cmdline`, 'utf8').split('\0');
  return join(args[args.indexOf('--repo') + 1]!, name);
}

describe('a stopped stub and a server killed with its stub spawner', () => {
  it('leaves no python3 behind: the kernel ends a stub whose spawner is gone (it cannot read EOF while stopped)', async () => {
    const repo = tempDir('round9-orphan-');
    writeModel(repo, 'stopper', 'pass');
    const s = await spawnStudio(repo);
    try {
      // Its next load's stub stops itself in initialize: then the server and its spawner are killed together, as a
      // process-group kill does, so neither can end it.
      writeModel(repo, 'stopper', STOPS_ITSELF);
      writeFileSync(join(repo, 'stopper', 'pid'), '');
      const load = http(`${s.url}/v2/repository/models/stopper/load`, { method: 'POST' }).catch(() => undefined);
      await expect
        .poll(() => readFileSync(join(repo, 'stopper', 'pid'), 'utf8') !== '', { timeout: 20_000 })
        .toBe(true);
      const stub = pidIn(join(repo, 'stopper'));
      await expect
        .poll(() => readFileSync(`/proc/${stub}/stat`, 'utf8').includes(') T '), { timeout: 5000 })
        .toBe(true);
      const spawner = childrenOf(s.child.pid!, 'stubSpawner');
      expect(spawner.length).toBe(1);
      expect(stubsDescendingFrom(s.child.pid!)).toContain(stub);
      // The server is stopped first: running, it would see its spawner die and kill the stubs itself.
      s.child.kill('SIGSTOP');
      process.kill(spawner[0]!, 'SIGKILL');
      s.child.kill('SIGKILL');
      await s.exited;
      await load;
      await expect.poll(() => processAlive(stub), { timeout: 5000 }).toBe(false);
    } finally {
      s.child.kill('SIGKILL');
    }
  }, 60_000);
});
