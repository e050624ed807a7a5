import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Tensor } from '@ensemble-studio/core';
import { singleModelGraph } from '@ensemble-studio/core';
import { loadRepository } from '../../../repo/loadRepository.ts';
import type { Repository } from '../../../repo/types.ts';
import { writeBlsCycle } from '../../../testing/blsCycleModels.ts';
import { tempDir } from '../../../testing/tempDir.ts';
import { Engine } from '../../Engine.ts';

// Two one-instance models that BLS-call each other wait on each other for ever (in Triton too). When the run
// that started the chain gives up, its BLS calls end with it, so the chain unwinds and both models serve again
// with the processes they had; before, each cancelled execute was killed after a grace period, and the call it
// had queued on the other model ran on that model's new process, so the pair restarted each other for ever.

let repo: Repository;
let engine: Engine;
const f32 = (...v: number[]): Tensor => ({ datatype: 'FP32', shape: [v.length], data: Float32Array.from(v) });
const run = (model: string, x: number, timeoutMs: number) =>
  engine.run({ graph: singleModelGraph(repo.catalogue.models[model]!), inputs: { X: f32(x) }, timeoutMs });
const pidOf = async (model: string) => {
  const r = await run(model, -1, 10_000);
  expect(r.status).toBe('completed');
  return Number((r.outputs.Y!.data as Float32Array)[0]);
};

beforeAll(async () => {
  const dir = tempDir('py-bls-cycle-');
  writeBlsCycle(dir);
  repo = await loadRepository(dir);
  engine = await Engine.create({ repository: repo });
});
afterAll(async () => {
  await engine?.close();
});

describe('a cycle of BLS calls between one-instance models', () => {
  it('ends with the run that started it; both models then answer from the processes they had', async () => {
    const before = [await pidOf('ping'), await pidOf('pong')];
    const r = await run('ping', 1, 500);
    expect(r.error?.code).toBe('timeout');
    // Past the grace period after which a cancelled execute that never returns has its process killed.
    await new Promise((resolve) => setTimeout(resolve, 3000));
    expect([await pidOf('ping'), await pidOf('pong')]).toEqual(before);
    await new Promise((resolve) => setTimeout(resolve, 3000));
    expect([await pidOf('ping'), await pidOf('pong')]).toEqual(before);
  });
});
