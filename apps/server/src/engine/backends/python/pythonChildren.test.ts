import { describe, expect, it } from 'vitest';
import { singleModelGraph, type Tensor } from '@ensemble-studio/core';
import { loadRepository } from '../../../repo/loadRepository.ts';
import { processAlive as alive } from '../../../testing/processAlive.ts';
import { writePythonModels } from '../../../testing/pythonModels.ts';
import { tempDir } from '../../../testing/tempDir.ts';
import { Engine } from '../../Engine.ts';

// A model that starts processes of its own: they end with its instance (closed, crashed or replaced), as the
// instance's process does, instead of outliving the server.

async function withForker(test: (fork: (x: number) => Promise<number | undefined>, engine: Engine) => Promise<void>) {
  const dir = tempDir('py-children-');
  writePythonModels(dir, ['forker']);
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
