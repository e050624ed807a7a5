import { Worker } from 'node:worker_threads';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import type { Tensor } from '@ensemble-studio/core';
import { COLLECT_ABOVE_BYTES } from './backends/onnx/idleCollection.ts';
import { Engine } from './Engine.ts';
import { makeTestRepository } from '../testing/engineFixtures.ts';
import { singleModelGraph } from '../testing/engineGraphs.ts';
import { SYNTHETIC } from '../onnx/synthetic.ts';

// A worker collects what its requests left once the engine has no run in flight (backends/onnx/idleCollection.ts):
// after the last run ends, the engine tells each worker whose requests exchanged more than COLLECT_ABOVE_BYTES.
const { F, C } = SYNTHETIC;
const ROWS = 64;
const repo = makeTestRepository(['head']);
const graph = singleModelGraph('head', [{ name: 'feat', dims: [F] }], [{ name: 'logits', dims: [C] }], ROWS);
const feat = (): Tensor => ({ datatype: 'FP32', shape: [ROWS, F], data: new Float32Array(ROWS * F) });
/** Runs whose feats and logits together pass the threshold. */
const RUNS_TO_COLLECT = Math.floor(COLLECT_ABOVE_BYTES / (ROWS * (F + C) * 4)) + 1;
let engine: Engine;

beforeAll(async () => {
  engine = await Engine.create({ repository: repo, opWorkers: 1 });
});
afterAll(async () => engine?.close());
afterEach(() => vi.restoreAllMocks());

/** Counts the `collect` messages posted to any worker. */
function collects(): () => number {
  const post = vi.spyOn(Worker.prototype, 'postMessage');
  return () => post.mock.calls.filter(([m]) => (m as { type?: string }).type === 'collect').length;
}

const nextTurn = () => new Promise((resolve) => setImmediate(resolve));
const run = async () => expect((await engine.run({ graph, inputs: { feat: feat() } })).status).toBe('completed');

describe('Engine: the idle signal', () => {
  it('tells a worker once its requests have exchanged enough, after the turn in which the last run ended', async () => {
    const count = collects();
    for (let k = 1; k < RUNS_TO_COLLECT; k++) {
      await run();
      await nextTurn();
      expect(count()).toBe(0); // too little to wake the worker for
    }
    await run();
    expect(count()).toBe(0); // not in the run's own turn (its response may still be on its way out)
    await nextTurn();
    expect(count()).toBe(1); // the head instance that ran them (the pool gives an idle engine's run to the first)
    await run();
    await nextTurn();
    expect(count()).toBe(1); // the count started again
  });

  it('waits for every run in flight to end', async () => {
    const count = collects();
    const seen: number[] = [];
    // Enough for both of head's instances (the fixture has two), whichever way the pool shares the runs out.
    const runs = 2 * RUNS_TO_COLLECT + 2;
    await Promise.all(Array.from({ length: runs }, () => run().then(() => seen.push(count()))));
    expect(seen).toEqual(Array.from({ length: runs }, () => 0));
    await nextTurn();
    expect(count()).toBeGreaterThanOrEqual(1);
    expect(count()).toBeLessThanOrEqual(2);
  });
});
