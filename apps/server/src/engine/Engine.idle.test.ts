import { Worker } from 'node:worker_threads';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import type { Tensor } from '@ensemble-studio/core';
import { Engine } from './Engine.ts';
import { makeTestRepository } from '../testing/engineFixtures.ts';
import { singleModelGraph } from '../testing/engineGraphs.ts';
import { SYNTHETIC } from '../onnx/synthetic.ts';

// A worker collects what its requests left once the engine has no run in flight (backends/onnx/idleCollection.ts):
// the engine tells the instances that served, and only those, when its last run ends.
const repo = makeTestRepository(['head'], { head: { instance_group: [{ count: 2, kind: 'KIND_CPU' }] } });
const graph = singleModelGraph(
  'head',
  [{ name: 'feat', dims: [SYNTHETIC.F] }],
  [{ name: 'logits', dims: [SYNTHETIC.C] }],
  64,
);
const feat = (): Tensor => ({ datatype: 'FP32', shape: [1, SYNTHETIC.F], data: new Float32Array(SYNTHETIC.F) });
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

describe('Engine: the idle signal', () => {
  it('tells the workers that served once its last run in flight has ended, not before', async () => {
    const count = collects();
    const seen: number[] = []; // the messages posted by the time each run had ended, in the order they ended
    const run = () => engine.run({ graph, inputs: { feat: feat() } }).then((r) => (seen.push(count()), r));
    const results = await Promise.all([run(), run()]);
    expect(results.map((r) => r.status)).toEqual(['completed', 'completed']);
    // The first run to end left the other in flight; the last one's end told the served instances (1 or 2 of head's).
    expect(seen[0]).toBe(0);
    expect(seen[1]).toBeGreaterThanOrEqual(1);
    expect(seen[1]).toBeLessThanOrEqual(2);
  });

  it('does not wake an instance that served nothing since it was last told', async () => {
    const count = collects();
    const r = await engine.run({ graph, inputs: { feat: feat() } });
    expect(r.status).toBe('completed');
    expect(count()).toBe(1); // the one instance that ran it; the other head instance and the op worker stay asleep
  });
});
