import { afterAll, describe, expect, it } from 'vitest';
import type { Tensor } from '@ensemble-studio/core';
import { INLINE_BUDGET_MS, OP_WORKER_MIN_BYTES, OpCostModel, OpRunner } from './OpRunner.ts';
import { tempDir } from '../testing/tempDir.ts';

describe('OpCostModel', () => {
  it('predicts from the median rate of the last runs, so one slow run does not move an op', () => {
    const m = new OpCostModel();
    expect(m.predict('topk', 1000)).toBeUndefined();
    for (const ms of [1, 1, 50, 1, 1]) m.record('topk', 1000, ms);
    expect(m.predict('topk', 2000)).toBe(2);
    for (let i = 0; i < 5; i++) m.record('topk', 1000, 9);
    expect(m.predict('topk', 1000)).toBe(9);
  });
});

describe('OpRunner placement', () => {
  const runner = new OpRunner(tempDir('ops-'), 1);
  afterAll(() => runner.close());
  const scores = (n: number): Tensor => ({
    datatype: 'FP32',
    shape: [1, n],
    data: Float32Array.from({ length: n }, (_, i) => Math.sin(i)),
  });
  const big = OP_WORKER_MIN_BYTES / 4 + 16;

  it('runs small inputs inline, a large one of an op never seen in a worker, and inline once it is known to be quick', async () => {
    expect((await runner.run('topk', { scores: scores(8) }, { k: 2 }, {})).instance).toBe('main');
    const first = await runner.run('topk', { scores: scores(big) }, { k: 2 }, {});
    expect(first.instance).toBe('ops_0');
    for (let i = 0; i < 5; i++) runner.costs.record('topk', big * 4, INLINE_BUDGET_MS / 10);
    const quick = await runner.run('topk', { scores: scores(big) }, { k: 2 }, {});
    expect(quick.instance).toBe('main');
    expect(quick.outputs).toEqual(first.outputs);
    for (let i = 0; i < 5; i++) runner.costs.record('topk', big * 4, INLINE_BUDGET_MS * 10);
    expect((await runner.run('topk', { scores: scores(big) }, { k: 2 }, {})).instance).toBe('ops_0');
  });
});
