import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Tensor } from '@ensemble-studio/core';
import { singleModelGraph } from '@ensemble-studio/core';
import { loadRepository } from '../../../repo/loadRepository.ts';
import type { Repository } from '../../../repo/types.ts';
import { tempDir } from '../../../testing/tempDir.ts';
import { Engine } from '../../Engine.ts';

// As in Triton, a Python model instance takes its next execute once `execute` returns, even while a decoupled
// model still holds the senders of earlier requests (a thread sends later, or a later execute sends their final).

const CONFIG = (name: string) => `name: "${name}"
backend: "python"
model_transaction_policy { decoupled: true }
input [ { name: "X" data_type: TYPE_FP32 dims: [ 1 ] } ]
output [ { name: "Y" data_type: TYPE_FP32 dims: [ 1 ] } ]
instance_group [ { count: 1 kind: KIND_CPU } ]
`;

// Each request answers its pid; a request with X > 5 also ends the previous request with X * 100.
const FINISHES_PREVIOUS = `
import os, numpy as np, triton_python_backend_utils as pb_utils
class TritonPythonModel:
    def initialize(self, args):
        self.previous = None
    def execute(self, requests):
        for r in requests:
            s = r.get_response_sender()
            x = pb_utils.get_input_tensor_by_name(r, "X").as_numpy()
            if self.previous is not None:
                self.previous.send(pb_utils.InferenceResponse([pb_utils.Tensor("Y", x * 100)]),
                                   flags=pb_utils.TRITONSERVER_RESPONSE_COMPLETE_FINAL)
                self.previous = None
            s.send(pb_utils.InferenceResponse([pb_utils.Tensor("Y", np.array([os.getpid()], np.float32))]))
            if x[0] > 5:
                s.send(flags=pb_utils.TRITONSERVER_RESPONSE_COMPLETE_FINAL)
            else:
                self.previous = s
        return None
`;

let repo: Repository;
let engine: Engine;
const f32 = (...v: number[]): Tensor => ({ datatype: 'FP32', shape: [v.length], data: Float32Array.from(v) });
const collecting = (x: number, extra: Partial<Parameters<Engine['run']>[0]> = {}) => {
  const ys: number[] = [];
  const result = engine.run({
    graph: singleModelGraph(repo.catalogue.models.finishes_previous!),
    inputs: { X: f32(x) },
    timeoutMs: 20_000,
    onResponse: (o, final) => {
      if (!final) ys.push(Number((o.Y!.data as Float32Array)[0]));
    },
    ...extra,
  });
  return { ys, result };
};

beforeAll(async () => {
  const dir = tempDir('py-decoupled-after-return-');
  mkdirSync(join(dir, 'finishes_previous', '1'), { recursive: true });
  writeFileSync(join(dir, 'finishes_previous', 'config.pbtxt'), CONFIG('finishes_previous'));
  writeFileSync(join(dir, 'finishes_previous', '1', 'model.py'), FINISHES_PREVIOUS.trimStart());
  repo = await loadRepository(dir);
  engine = await Engine.create({ repository: repo });
});
afterAll(async () => {
  await engine?.close();
});

describe('a decoupled Python model whose execute returned before its requests were final', () => {
  it('takes the next request, which may end an earlier one through its sender', async () => {
    const first = collecting(1);
    await expect.poll(() => first.ys.length, { timeout: 15_000 }).toBe(1);
    const second = collecting(7);
    const [a, b] = await Promise.all([first.result, second.result]);
    expect(a.status).toBe('completed');
    expect(b.status).toBe('completed');
    expect(first.ys).toEqual([first.ys[0], 700]);
    expect(second.ys).toEqual([first.ys[0]]);
  });

  it('a request cancelled after execute returned is given up without stopping the process', async () => {
    const abort = new AbortController();
    const open = collecting(2, { signal: abort.signal });
    await expect.poll(() => open.ys.length, { timeout: 15_000 }).toBe(1);
    const pid = open.ys[0];
    abort.abort();
    expect((await open.result).status).not.toBe('completed');
    // Past the time after which a cancelled execute that never returned gets its process killed.
    await new Promise((r) => setTimeout(r, 2500));
    const next = collecting(9);
    expect((await next.result).status).toBe('completed');
    expect(next.ys).toEqual([pid]);
  });
});
