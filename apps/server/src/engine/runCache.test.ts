import { describe, expect, it } from 'vitest';
import type { GraphDoc, Tensor } from '@ensemble-studio/core';
import { GraphStats } from './graphStats.ts';
import { ResponseCache } from './responseCache.ts';
import { RunCache } from './runCache.ts';

const doc = (): GraphDoc => ({ version: 1, name: 'ens', maxBatchSize: 0, nodes: [], edges: [] });
const x: Record<string, Tensor> = { x: { datatype: 'FP32', shape: [1], data: Float32Array.of(1) } };
const y: Record<string, Tensor> = { y: { datatype: 'FP32', shape: [1], data: Float32Array.of(2) } };

function stored(rc: RunCache, req: Parameters<RunCache['answer']>[0]): void {
  const a = rc.answer(req);
  if (!a.hit) a.store(y);
}

describe("RunCache (an ensemble's top-level response cache)", () => {
  it('answers the same document and inputs from the cache, counting the hit and the miss on the graph', () => {
    const stats = new GraphStats();
    const rc = new RunCache(new ResponseCache(1024), stats);
    const graph = doc();
    stored(rc, { graph, inputs: x });
    expect(rc.answer({ graph, inputs: x }).hit).toEqual(y);
    expect(stats.all().ens!.cache).toMatchObject({ hits: 1, misses: 1 });
  });

  it('never answers with what an edited graph, a reloaded model or other requested outputs got', () => {
    const rc = new RunCache(new ResponseCache(1024), new GraphStats());
    const graph = doc();
    stored(rc, { graph, inputs: x });
    expect(rc.answer({ graph: doc(), inputs: x }).hit).toBeUndefined(); // another document of the same name
    expect(rc.answer({ graph, inputs: x, requestedOutputs: ['y'] }).hit).toBeUndefined();
    rc.reset();
    expect(rc.answer({ graph, inputs: x }).hit).toBeUndefined();
  });
});
