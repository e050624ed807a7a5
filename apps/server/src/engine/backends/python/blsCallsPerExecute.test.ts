import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { singleModelGraph, type Tensor } from '@ensemble-studio/core';
import { loadRepository } from '../../../repo/loadRepository.ts';
import type { Repository } from '../../../repo/types.ts';
import { tempDir } from '../../../testing/tempDir.ts';
import { Engine } from '../../Engine.ts';

// Real python3: a decoupled `async def execute` runs several requests at once on one instance, each waiting on a BLS
// call. Cancelling one request ends its own BLS call at once (the callee sees is_cancelled), not the others'; before,
// a BLS frame did not say which execute made it, so the calls were left to the grace-period kill.

const CONFIG = (name: string, extra: string) => `name: "${name}"
backend: "python"
${extra}
input [ { name: "X" data_type: TYPE_FP32 dims: [ 1 ] } ]
output [ { name: "Y" data_type: TYPE_FP32 dims: [ 1 ] } ]
`;

// Waits until its request is cancelled (noting it) or X seconds have passed, then answers X.
const WAITER = `import os, time
import triton_python_backend_utils as pb_utils

class TritonPythonModel:
    def initialize(self, args):
        self.dir = args["model_repository"]

    def execute(self, requests):
        x = pb_utils.get_input_tensor_by_name(requests[0], "X").as_numpy()
        end = time.time() + float(x[0])
        while time.time() < end:
            if requests[0].is_cancelled():
                with open(os.path.join(self.dir, "cancelled"), "a") as f:
                    f.write("%g\\n" % x[0])
                break
            time.sleep(0.02)
        return [pb_utils.InferenceResponse([pb_utils.Tensor("Y", x)])]
`;

// For each request, a BLS call to waiter with its X, answered with waiter's Y.
const CALLER = `import triton_python_backend_utils as pb_utils

class TritonPythonModel:
    async def execute(self, requests):
        for r in requests:
            sender = r.get_response_sender()
            x = pb_utils.get_input_tensor_by_name(r, "X")
            reply = await pb_utils.InferenceRequest(
                model_name="waiter", inputs=[x], requested_output_names=["Y"]).async_exec()
            y = pb_utils.get_output_tensor_by_name(reply, "Y")
            out = pb_utils.InferenceResponse([y] if y is not None else [], error=reply.error())
            sender.send(out, flags=pb_utils.TRITONSERVER_RESPONSE_COMPLETE_FINAL)
        return None
`;

let dir: string;
let repo: Repository;
let engine: Engine;
const run = (x: number, timeoutMs?: number) =>
  engine.run({
    graph: singleModelGraph(repo.catalogue.models.caller!),
    inputs: { X: { datatype: 'FP32', shape: [1], data: Float32Array.of(x) } satisfies Tensor },
    ...(timeoutMs ? { timeoutMs } : {}),
  });
const cancelled = () => {
  try {
    return readFileSync(join(dir, 'waiter', 'cancelled'), 'utf8')
      .trim()
      .split('\n');
  } catch {
    return [];
  }
};

beforeAll(async () => {
  dir = tempDir('py-bls-per-execute-');
  for (const [name, extra, py] of [
    ['waiter', 'instance_group [ { count: 2 kind: KIND_CPU } ]', WAITER],
    ['caller', 'model_transaction_policy { decoupled: true }\ninstance_group [ { count: 1 kind: KIND_CPU } ]', CALLER],
  ] as const) {
    mkdirSync(join(dir, name, '1'), { recursive: true });
    writeFileSync(join(dir, name, 'config.pbtxt'), CONFIG(name, extra));
    writeFileSync(join(dir, name, '1', 'model.py'), py);
  }
  repo = await loadRepository(dir);
  engine = await Engine.create({ repository: repo });
}, 60_000);
afterAll(async () => {
  await engine?.close();
});

describe('BLS calls of executes running side by side on one instance', () => {
  it("a cancelled request's call ends at once; the other request's call goes on and answers", async () => {
    const other = run(1.5);
    const gaveUp = await run(8, 500);
    expect(gaveUp.error?.code).toBe('timeout');
    // Well within the 2 s after which a cancelled execute's leftovers are given up.
    await expect.poll(cancelled, { timeout: 1000, interval: 50 }).toEqual(['8']);
    const answered = await other;
    expect([answered.status, Array.from(answered.outputs.Y!.data as Float32Array)]).toEqual(['completed', [1.5]]);
    expect(cancelled()).toEqual(['8']);
  }, 30_000);
});
