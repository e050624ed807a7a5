import { availableParallelism } from 'node:os';
import { describe, expect, it } from 'vitest';
import type { GraphDoc } from '@ensemble-studio/core';
import type { FusedGroup } from './fusion.ts';
import { indexGraph } from './graphIndex.ts';
import type { ModelRuntime } from './ModelRuntime.ts';
import { Placer } from './placement.ts';
import { noteSpin, planSpins, startSpins } from './spinAhead.ts';
import { ocrGraph } from '../testing/engineGraphs.ts';

/** Runtimes that log what they were asked to poll for: [node, fused]. */
function asking(graph: GraphDoc, nodes: string[]) {
  const asked: [string, boolean][] = [];
  const runtimes = new Map<string, ModelRuntime>();
  for (const node of nodes)
    runtimes.set(node, {
      spinAhead: (_ns: number, fused: boolean) => (asked.push([node, fused]), true),
    } as unknown as ModelRuntime);
  return { asked, runtimes, idx: indexGraph(graph) };
}

const pos = { x: 0, y: 0 };
/** One input feeding two models directly. */
const twoModels: GraphDoc = {
  version: 1,
  name: 'two',
  maxBatchSize: 0,
  nodes: [
    { id: 'x', kind: 'input', position: pos, params: { name: 'x', datatype: 'FP32', dims: [4] } },
    { id: 'a', kind: 'model', position: pos, params: { model: 'a' } },
    { id: 'b', kind: 'model', position: pos, params: { model: 'b' } },
  ],
  edges: [
    { id: 'e1', source: 'x', sourcePort: 'out', target: 'a', targetPort: 'x' },
    { id: 'e2', source: 'x', sourcePort: 'out', target: 'b', targetPort: 'x' },
  ],
};

describe('planSpins and startSpins', () => {
  it('asks for at most one polling worker per CPU beside the main thread', () => {
    const { asked, runtimes, idx } = asking(twoModels, ['a', 'b']);
    startSpins(planSpins(idx, undefined, runtimes, new Placer(), (n) => n.id));
    expect(asked).toEqual(
      [
        ['a', false],
        ['b', false],
      ].slice(0, Math.max(0, availableParallelism() - 1)),
    );
  });

  it.skipIf(availableParallelism() < 2)(
    "asks for a fused group's model, and not for models behind another model's request",
    () => {
      const graph = ocrGraph();
      const node = (id: string) => graph.nodes.find((n) => n.id === id)!;
      const group: FusedGroup = { members: ['preprocess', 'det', 'db', 'has_text', 'crop'].map(node), inputs: [] };
      const { asked, runtimes, idx } = asking(graph, ['det', 'rec', 'cls']);
      const decided = startSpins(planSpins(idx, new Map([['preprocess', group]]), runtimes, new Placer(), (n) => n.id));
      expect([...decided.keys()]).toEqual(['det']);
      expect(asked).toEqual([['det', true]]);
      // Unfused this run, the first node is an op: no model request goes first.
      expect(startSpins(planSpins(idx, undefined, runtimes, new Placer(), (n) => n.id)).size).toBe(0);
    },
  );

  it("records the first request's way against the choice once, from the decision to the worker's taking it, after the turn", async () => {
    const placer = new Placer();
    const spins = new Map([['det', 1_000_000]]);
    const r = { arrivedNs: 1_400_000, spun: true, instance: 'det_0' };
    // The instance's first WARMUP_RUNS requests count for neither way; the sixth is measured.
    for (let i = 0; i < 6; i++) {
      spins.set('det', 1_000_000);
      expect(noteSpin(spins, placer, 'det', () => 'g/det', r)).toBe(true);
    }
    // Recorded once the turn is over (afterTurn.ts): the run's answer does not wait for it.
    expect(placer.costs.estimate('g/det', 'spun')).toBeUndefined();
    await new Promise((resolve) => setImmediate(resolve));
    expect(placer.costs.estimate('g/det', 'spun')).toBeCloseTo(0.4);
    expect(noteSpin(spins, placer, 'det', () => 'g/det', r)).toBeUndefined(); // once per run
  });
});
