import { availableParallelism } from 'node:os';
import { describe, expect, it } from 'vitest';
import type { GraphDoc } from '@ensemble-studio/core';
import type { FusedGroup } from './fusion.ts';
import { indexGraph } from './graphIndex.ts';
import type { ModelRuntime } from './ModelRuntime.ts';
import { Placer } from './placement.ts';
import { noteSpin, spinFirstRequests } from './spinAhead.ts';
import { branchesGraph, ocrGraph } from '../testing/engineGraphs.ts';

/** Runtimes that log what they were asked to poll for: [model, fused, after]. */
function asking(graph: GraphDoc, models: Record<string, string>) {
  const asked: [string, boolean, number][] = [];
  const runtimes = new Map<string, ModelRuntime>();
  const byModel = new Map<string, ModelRuntime>();
  for (const [node, model] of Object.entries(models)) {
    const rt =
      byModel.get(model) ??
      ({
        spinAhead: (_ns: number, fused: boolean, after: number) => (asked.push([model, fused, after]), true),
      } as unknown as ModelRuntime);
    byModel.set(model, rt);
    runtimes.set(node, rt);
  }
  return { asked, runtimes, idx: indexGraph(graph) };
}

// On one CPU nothing polls.
describe.skipIf(availableParallelism() < 2)('spinFirstRequests', () => {
  it("asks for the run's first requests through routers, one instance per request to the same model", () => {
    const graph = branchesGraph('det', { name: 'x', dims: [3, 64, 64] }, { name: 'maps', dims: [1, 64, 64] }, 0);
    const { asked, runtimes, idx } = asking(graph, { branch_a: 'det', branch_b: 'det' });
    const decided = spinFirstRequests(idx, undefined, runtimes, new Placer(), (n) => n.id);
    expect([...decided.keys()]).toEqual(['branch_a', 'branch_b']);
    expect(asked).toEqual([
      ['det', false, 0],
      ['det', false, 1],
    ]);
  });

  it("asks for a fused group's model, and not for models behind another model's request", () => {
    const graph = ocrGraph();
    const node = (id: string) => graph.nodes.find((n) => n.id === id)!;
    const group: FusedGroup = { members: ['preprocess', 'det', 'db', 'has_text', 'crop'].map(node), inputs: [] };
    const { asked, runtimes, idx } = asking(graph, { det: 'det', rec: 'rec', cls: 'cls' });
    const decided = spinFirstRequests(idx, new Map([['preprocess', group]]), runtimes, new Placer(), (n) => n.id);
    expect([...decided.keys()]).toEqual(['det']);
    expect(asked).toEqual([['det', true, 0]]);
    // Unfused this run, the first node is an op: no model request goes first.
    expect(spinFirstRequests(idx, undefined, runtimes, new Placer(), (n) => n.id).size).toBe(0);
  });

  it("records the first request's way against the choice once, from the decision to the worker's taking it", () => {
    const placer = new Placer();
    const spins = new Map([['det', 1_000_000]]);
    const r = { arrivedNs: 1_400_000, spun: true, instance: 'det_0' };
    // The instance's first WARMUP_RUNS requests count for neither way; the sixth is measured.
    for (let i = 0; i < 6; i++) {
      spins.set('det', 1_000_000);
      expect(noteSpin(spins, placer, 'det', () => 'g/det', r)).toBe(true);
    }
    expect(placer.costs.estimate('g/det', 'spun')).toBeCloseTo(0.4);
    expect(noteSpin(spins, placer, 'det', () => 'g/det', r)).toBeUndefined(); // once per run
  });
});
