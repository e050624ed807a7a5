import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { singleModelGraph, type Tensor } from '@ensemble-studio/core';
import { loadRepository } from '../../../repo/loadRepository.ts';
import { processAlive } from '../../../testing/processAlive.ts';
import { writePythonModels } from '../../../testing/pythonModels.ts';
import { tempDir } from '../../../testing/tempDir.ts';
import { Engine } from '../../Engine.ts';

// Real python3 stubs whose `initialize` stops the process (SIGSTOP) or only takes long: as in Triton, the first
// fails its load once the stub has not run for the health timeout (and is killed), the second loads. One that stops
// in `execute` fails its requests as Triton's backend fails them while it waits on the stub, and is restarted.

const CONFIG = (name: string) => `name: "${name}"
backend: "python"
input [ { name: "X" data_type: TYPE_FP32 dims: [ 1 ] } ]
output [ { name: "Y" data_type: TYPE_FP32 dims: [ 1 ] } ]
instance_group [ { count: 1 kind: KIND_CPU } ]
`;

// `execute` stops the process when X is negative; otherwise Y = X.
const MODEL = (initialize: string) => `import os, signal, time
import triton_python_backend_utils as pb_utils

class TritonPythonModel:
    def initialize(self, args):
        with open(os.path.join(args["model_repository"], "pid"), "w") as f:
            f.write(str(os.getpid()))
        ${initialize}

    def execute(self, requests):
        x = [pb_utils.get_input_tensor_by_name(r, "X").as_numpy() for r in requests]
        while any(v[0] < 0 for v in x):
            os.kill(os.getpid(), signal.SIGSTOP)
        return [pb_utils.InferenceResponse([pb_utils.Tensor("Y", v)]) for v in x]
`;

function writeModel(dir: string, name: string, initialize: string): void {
  mkdirSync(join(dir, name, '1'), { recursive: true });
  writeFileSync(join(dir, name, 'config.pbtxt'), CONFIG(name));
  writeFileSync(join(dir, name, '1', 'model.py'), MODEL(initialize));
}

const x = (v: number): Tensor => ({ datatype: 'FP32', shape: [1], data: Float32Array.of(v) });

describe('a Python stub that stops in initialize', () => {
  it("fails its load with Triton's message and is killed; a slow initialize and the other models load", async () => {
    const dir = tempDir('py-unhealthy-');
    // Stopped again at once if something outside resumes it (seen once in a stress run; what resumed it was not found).
    writeModel(dir, 'stopper', 'while True: os.kill(os.getpid(), signal.SIGSTOP)');
    writeModel(dir, 'slow', 'time.sleep(6.5)');
    writePythonModels(dir, ['add_sub']);
    const repo = await loadRepository(dir);
    // Without the health watch, the load never returns and the test's own timeout fails it.
    const engine = await Engine.create({ repository: repo });
    try {
      expect(engine.modelUnavailable('stopper')).toBe("Stub process 'stopper_0_0' is not healthy.");
      expect(processAlive(Number(readFileSync(join(dir, 'stopper', 'pid'), 'utf8')))).toBe(false);
      expect(engine.modelUnavailable('slow')).toBeUndefined();
      const r = await engine.run({
        graph: singleModelGraph(repo.catalogue.models.slow!),
        inputs: { X: { datatype: 'FP32', shape: [1], data: Float32Array.of(3) } satisfies Tensor },
      });
      expect([r.status, Array.from(r.outputs.Y!.data as Float32Array)]).toEqual(['completed', [3]]);
      expect(engine.modelUnavailable('add_sub')).toBeUndefined();
    } finally {
      await engine.close();
    }
  }, 60_000);
});

describe('a Python stub that stops in execute', () => {
  it("fails the request with Triton's message, is killed and restarted; the next request is answered", async () => {
    const dir = tempDir('py-unhealthy-exec-');
    writeModel(dir, 'exec_stopper', 'pass');
    const repo = await loadRepository(dir);
    const engine = await Engine.create({ repository: repo });
    try {
      const graph = singleModelGraph(repo.catalogue.models.exec_stopper!);
      const pid = Number(readFileSync(join(dir, 'exec_stopper', 'pid'), 'utf8'));
      // Without the health watch the run waited for its deadline (code 'timeout').
      const stopped = await engine.run({ graph, inputs: { X: x(-1) }, timeoutMs: 30_000 });
      expect([stopped.status, stopped.error?.code, stopped.error?.message]).toEqual([
        'failed',
        'instance-crashed',
        "in ensemble 'exec_stopper', node 'model': Stub process 'exec_stopper_0_0' is not healthy.",
      ]);
      await expect.poll(() => processAlive(pid), { timeout: 5000 }).toBe(false);
      await expect
        .poll(async () => (await engine.run({ graph, inputs: { X: x(3) } })).status, { timeout: 20_000, interval: 200 })
        .toBe('completed');
    } finally {
      await engine.close();
    }
  }, 60_000);
});
