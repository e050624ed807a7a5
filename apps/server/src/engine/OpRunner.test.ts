import { afterAll, describe, expect, it } from 'vitest';
import type { Tensor } from '@ensemble-studio/core';
import { OpRunner } from './OpRunner.ts';
import { WARMUP_RUNS } from './costTable.ts';
import { LOOP_BLOCK_BUDGET_MS } from './placement.ts';
import { tempDir } from '../testing/tempDir.ts';

describe('OpRunner placement', () => {
  const runner = new OpRunner(tempDir('ops-'), 1);
  afterAll(() => runner.close());
  const scores = (n: number): Tensor => ({
    datatype: 'FP32',
    shape: [1, n],
    data: Float32Array.from({ length: n }, (_, i) => Math.sin(i)),
  });
  /** Samples enough to outweigh what was measured for real (the estimates are medians of recent samples). */
  const measured = (key: string, place: 'inline' | 'op-worker', ms: number) => {
    for (let i = 0; i < 40; i++)
      runner.placer.costs.record(key, place, ms, place === 'inline' ? 'topk@main' : 'topk@ops_0');
  };

  it('runs an op not yet measured in a worker, inline once measured quick, in a worker once inline is over the loop budget', async () => {
    const key = 'graph/topk';
    const first = await runner.run('topk', { scores: scores(4096) }, { k: 2 }, { key });
    expect(first).toMatchObject({ instance: 'ops_0', placement: 'op-worker' });
    // An op's first runs on a thread do not count (V8 compiles it there): until one does, it stays in the worker.
    for (let i = 0; i < WARMUP_RUNS; i++)
      expect((await runner.run('topk', { scores: scores(4096) }, { k: 2 }, { key })).placement).toBe('op-worker');
    expect(runner.placer.costs.estimate(key, 'op-worker')).toBeGreaterThanOrEqual(0);
    expect(runner.placer.costs.hopMs()).toBeGreaterThanOrEqual(0);
    measured(key, 'op-worker', LOOP_BLOCK_BUDGET_MS / 100);
    const quick = await runner.run('topk', { scores: scores(4096) }, { k: 2 }, { key });
    expect(quick).toMatchObject({ instance: 'main', placement: 'inline' });
    expect(quick.outputs).toEqual(first.outputs);
    measured(key, 'inline', LOOP_BLOCK_BUDGET_MS * 10);
    expect((await runner.run('topk', { scores: scores(4096) }, { k: 2 }, { key })).placement).toBe('op-worker');
  });
});
