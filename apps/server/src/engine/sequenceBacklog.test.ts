// New sequences waiting for a slot each hold one of the engine's runs: a model's backlog is capped at a quarter of
// maxConcurrentRuns, so a client holding every slot of one model cannot take every run from the others.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Tensor } from '@ensemble-studio/core';
import { Engine } from './Engine.ts';
import { makeTestRepository } from '../testing/engineFixtures.ts';
import { syntheticConfigs } from '../testing/engineFixtureRepository.ts';
import { singleModelGraph } from '../testing/engineGraphs.ts';
import { SYNTHETIC } from '../onnx/synthetic.ts';

const { S, F, C } = SYNTHETIC;
const base = syntheticConfigs().accumulator!.sequence_batching!;
const repo = makeTestRepository(['accumulator', 'head'], {
  accumulator: {
    sequence_batching: {
      ...base,
      max_sequence_idle_microseconds: 60_000_000,
      oldest: { max_candidate_sequences: 2, preferred_batch_size: [2], max_queue_delay_microseconds: 0 },
    },
  },
});
let engine: Engine;
beforeAll(async () => {
  engine = await Engine.create({ repository: repo, maxConcurrentRuns: 8 });
});
afterAll(async () => engine?.close());

const acc = singleModelGraph('accumulator', [{ name: 'x', dims: [S] }], [{ name: 'y', dims: [S] }], 64);
const ones = (): Tensor => ({ datatype: 'FP32', shape: [1, S], data: new Float32Array(S).fill(1) });
const step = (id: number, start: boolean, end = false) =>
  engine.run({ graph: acc, inputs: { x: ones() }, sequence: { id, start, end } });

describe('sequence backlog', () => {
  it('refuses a new sequence past a quarter of maxConcurrentRuns waiting, and the waiting ones run once slots free', async () => {
    expect((await step(1, true)).status).toBe('completed');
    expect((await step(2, true)).status).toBe('completed');
    // Both slots held: two new sequences wait (8 / 4 = 2), the third is refused at once.
    const waiting = [step(3, true), step(4, true)];
    const refused = await step(5, true);
    expect(refused.error).toMatchObject({
      code: 'limit',
      message: expect.stringContaining(
        "model 'accumulator' has every sequence slot held and 2 new sequences waiting for one (at most 2, a quarter of maxConcurrentRuns); try again when a sequence ends",
      ),
    });
    // Other models still run.
    const head = singleModelGraph('head', [{ name: 'feat', dims: [F] }], [{ name: 'logits', dims: [C] }], 64);
    const feat: Tensor = { datatype: 'FP32', shape: [1, F], data: new Float32Array(F) };
    expect((await engine.run({ graph: head, inputs: { feat } })).status).toBe('completed');
    expect((await step(1, false, true)).status).toBe('completed');
    expect((await step(2, false, true)).status).toBe('completed');
    expect((await Promise.all(waiting)).map((r) => r.status)).toEqual(['completed', 'completed']);
  });
});
