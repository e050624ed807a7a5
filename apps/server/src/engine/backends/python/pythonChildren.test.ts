import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { singleModelGraph, type Tensor } from '@ensemble-studio/core';
import { loadRepository } from '../../../repo/loadRepository.ts';
import { tempDir } from '../../../testing/tempDir.ts';
import { Engine } from '../../Engine.ts';

// A model that starts processes of its own: they end with its instance (closed, crashed or replaced), as the
// instance's process does, instead of outliving the server.

// X > 0: fork a child that sleeps for a minute and answer its pid; X < 0: the instance dies.
const FORKER = `
import os, time
import numpy as np
import triton_python_backend_utils as pb_utils

class TritonPythonModel:
    def execute(self, requests):
        x = float(pb_utils.get_input_tensor_by_name(requests[0], "X").as_numpy()[0])
        if x < 0:
            os._exit(3)
        pid = os.fork()
        if pid == 0:
            time.sleep(60)
            os._exit(0)
        return [pb_utils.InferenceResponse([pb_utils.Tensor("PID", np.array([pid], np.int64))])]
`;

const CONFIG = `name: "forker"
backend: "python"
max_batch_size: 0
input [ { name: "X" data_type: TYPE_FP32 dims: [ 1 ] } ]
output [ { name: "PID" data_type: TYPE_INT64 dims: [ 1 ] } ]
instance_group [ { count: 1 kind: KIND_CPU } ]
`;

/** Whether `pid` is a live process (a zombie, left for a parent that does not reap, counts as gone). */
function alive(pid: number): boolean {
  try {
    return !/^\d+ \(.*\) Z/.test(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return false;
  }
}

async function withForker(test: (fork: (x: number) => Promise<number | undefined>, engine: Engine) => Promise<void>) {
  const dir = tempDir('py-children-');
  mkdirSync(join(dir, 'forker', '1'), { recursive: true });
  writeFileSync(join(dir, 'forker', 'config.pbtxt'), CONFIG);
  writeFileSync(join(dir, 'forker', '1', 'model.py'), FORKER.trimStart());
  const repo = await loadRepository(dir);
  const engine = await Engine.create({ repository: repo });
  const fork = async (x: number) => {
    const r = await engine.run({
      graph: singleModelGraph(repo.catalogue.models.forker!),
      inputs: { X: { datatype: 'FP32', shape: [1], data: Float32Array.of(x) } satisfies Tensor },
    });
    const pid = r.outputs.PID?.data as BigInt64Array | undefined;
    return pid ? Number(pid[0]) : undefined;
  };
  try {
    await test(fork, engine);
  } finally {
    await engine.close();
  }
}

describe('processes a Python model starts', () => {
  it('end when the engine closes', async () => {
    let child = 0;
    await withForker(async (fork) => {
      child = (await fork(1))!;
      expect(alive(child)).toBe(true);
    });
    await expect.poll(() => alive(child), { timeout: 5000 }).toBe(false);
  });

  it('end when their instance dies, and the restarted instance serves', async () => {
    await withForker(async (fork) => {
      const child = (await fork(1))!;
      expect(alive(child)).toBe(true);
      await fork(-1);
      await expect.poll(() => alive(child), { timeout: 5000 }).toBe(false);
      await expect.poll(async () => (await fork(1)) !== undefined, { timeout: 15_000, interval: 200 }).toBe(true);
    });
  });
});
