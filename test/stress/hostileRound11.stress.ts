// The eleventh hostile round, as regression cases against a real `studio serve` (a bystander asking
// /v2/health/ready from a process of its own): Python stubs that stop themselves in `execute` and in `finalize`, a
// `finalize` that raises, a model that leaves out an output of its config, and a decoupled model that streams
// 100,000 responses on one gRPC stream.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { connectTestClient, streamAll } from '../../apps/server/src/testing/grpcTestClient.ts';
import { processAlive } from '../../apps/server/src/testing/processAlive.ts';
import { http, spawnStudio } from '../support/server.ts';
import { tempDir } from '../support/tempDir.ts';
import { probedStudio } from './hostileProbe.ts';

/** Python model `name` (N INT32 [1] → OUT INT32 [1], and `extra` in its config) with `body` as its class. */
function writeModel(repo: string, name: string, body: string, extra = ''): void {
  mkdirSync(join(repo, name, '1'), { recursive: true });
  writeFileSync(
    join(repo, name, 'config.pbtxt'),
    `backend: "python"
input [ { name: "N" data_type: TYPE_INT32 dims: [ 1 ] } ]
output [ { name: "OUT" data_type: TYPE_INT32 dims: [ 1 ] } ]
instance_group [ { count: 1 kind: KIND_CPU } ]
${extra}
`,
  );
  writeFileSync(
    join(repo, name, '1', 'model.py'),
    `import os, signal
import numpy as np
import triton_python_backend_utils as pb_utils

def n_of(r): return int(pb_utils.get_input_tensor_by_name(r, "N").as_numpy()[0])
def out(v): return pb_utils.InferenceResponse([pb_utils.Tensor("OUT", np.array([v], np.int32))])

class TritonPythonModel:
    def initialize(self, args):
        with open(os.path.join(args["model_repository"], "pid"), "w") as f:
            f.write(str(os.getpid()))
${body}
`,
  );
}

const STOP = 'os.kill(os.getpid(), signal.SIGSTOP)';
let repo = '';
const { studio, probe } = probedStudio(() => {
  repo = tempDir('studio-round11-');
  // Stops itself in execute when N < 0 (again if resumed); otherwise answers OUT = N and leaves S out.
  writeModel(
    repo,
    'stopper',
    `    def execute(self, requests):
        while any(n_of(r) < 0 for r in requests): ${STOP}
        return [out(n_of(r)) for r in requests]`,
    'output [ { name: "S" data_type: TYPE_INT32 dims: [ 1 ] } ]',
  );
  writeModel(
    repo,
    'stop_finalize',
    `    def execute(self, requests): return [out(1) for r in requests]\n    def finalize(self): ${STOP}`,
  );
  writeModel(
    repo,
    'raise_finalize',
    `    def execute(self, requests): return [out(1) for r in requests]\n    def finalize(self): raise RuntimeError("finalize exploded")`,
  );
  writeModel(
    repo,
    'many',
    `    def execute(self, requests):
        for r in requests:
            s = r.get_response_sender()
            for i in range(n_of(r)): s.send(out(i))
            s.send(flags=pb_utils.TRITONSERVER_RESPONSE_COMPLETE_FINAL)`,
    'model_transaction_policy { decoupled: true }',
  );
  return spawnStudio(repo);
});

const infer = (model: string, n: number, outputs?: string[]) =>
  http(`${studio.url}/v2/models/${model}/infer`, {
    method: 'POST',
    body: JSON.stringify({
      inputs: [{ name: 'N', datatype: 'INT32', shape: [1], data: [n] }],
      ...(outputs ? { outputs: outputs.map((name) => ({ name })) } : {}),
    }),
  });
const unload = (model: string) => http(`${studio.url}/v2/repository/models/${model}/unload`, { method: 'POST' });
const pidOf = (model: string) => Number(readFileSync(join(repo, model, 'pid'), 'utf8'));

describe('hostile input, eleventh round', () => {
  it("a stub stopped in execute fails its request with Triton's message and is restarted", async () => {
    // It was caught only by the run's deadline.
    const stopped = await probe('a stub that stops itself in execute', () => infer('stopper', -1));
    expect([stopped.status, stopped.json]).toEqual([500, { error: "Stub process 'stopper_0_0' is not healthy." }]);
    await expect.poll(async () => (await infer('stopper', 3)).status, { timeout: 30_000, interval: 250 }).toBe(200);
  });

  it('an output of the config the model does not make is left out of a 200, asked for or not', async () => {
    // It failed with 500 "in ensemble 'stopper', output S was not produced: no more nodes can run".
    const all = await probe('an output the model leaves out', () => infer('stopper', 2));
    expect([all.status, (all.json as { outputs: { name: string }[] }).outputs.map((o) => o.name)]).toEqual([
      200,
      ['OUT'],
    ]);
    const asked = await infer('stopper', 2, ['S']);
    expect([asked.status, (asked.json as { outputs: unknown[] }).outputs]).toEqual([200, []]);
  });

  it('a stub stopped in finalize is killed once it is seen stopped, not after the 5 s close timeout', async () => {
    const pid = pidOf('stop_finalize');
    const t0 = Date.now();
    expect((await probe('an unload whose finalize stops the stub', () => unload('stop_finalize'))).status).toBe(200);
    await expect.poll(() => processAlive(pid), { timeout: 10_000, interval: 50 }).toBe(false);
    expect(Date.now() - t0).toBeLessThan(4000);
  });

  it('a finalize that raises has its error in the server log', async () => {
    expect((await unload('raise_finalize')).status).toBe(200);
    await expect
      .poll(() => studio.output(), { timeout: 10_000 })
      .toMatch(
        /\[raise_finalize_0\] error: finalize of model 'raise_finalize' failed: RuntimeError: finalize exploded/,
      );
  });

  it('100,000 responses on one gRPC stream all arrive, in order, with the bystander answered', async () => {
    const client = connectTestClient(/grpc listening on (\S+)/.exec(studio.output())![1]!);
    try {
      const request = {
        model_name: 'many',
        inputs: [{ name: 'N', datatype: 'INT32', shape: [1] }],
        raw_input_contents: [Buffer.from(Int32Array.of(100_000).buffer)],
      };
      const got = await probe('100,000 responses on one gRPC stream', () => streamAll(client, [request]));
      expect(got.filter((m) => m.error_message !== '')).toEqual([]);
      const values = got.map((m) => new Int32Array(new Uint8Array(m.infer_response.raw_output_contents[0]).buffer)[0]);
      expect(values.length).toBe(100_000);
      expect(values.every((v, i) => v === i)).toBe(true);
    } finally {
      client.close();
    }
  });
});
