// ExportedRuns.runModel: one model of a graph's exported repository run on its own (a generated helper's
// model.py in python3), from the same export as the whole graph's runs.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadRepository } from '../repo/loadRepository.ts';
import type { Repository } from '../repo/types.ts';
import { forkGraph } from '../testing/forkGraph.ts';
import { makeTestRepository } from '../testing/testRepository.ts';
import { Engine } from './Engine.ts';
import { ExportedRuns } from './exportedRuns.ts';

let repo: Repository;
let runs: ExportedRuns;
beforeAll(async () => {
  repo = await loadRepository(makeTestRepository());
  runs = new ExportedRuns(repo, (options) => Engine.create(options), {
    python: process.env.STUDIO_PYTHON || '/usr/bin/python3',
  });
});
afterAll(async () => runs?.close());

const graph = forkGraph('fork');
const feat = new Float32Array(Array.from({ length: 256 }, (_, i) => (i % 5) / 5));

describe('ExportedRuns.runModel', () => {
  it('runs the router the compiler generated for a step: every output a copy of its input', async () => {
    const r = await runs.runModel(graph, 'fork_share', {
      graph,
      inputs: { in: { datatype: 'FP32', shape: [1, 256], data: feat } },
    });
    expect(r.status).toBe('completed');
    expect(Object.keys(r.outputs).sort()).toEqual(['out_0', 'out_1']);
    for (const t of Object.values(r.outputs)) expect(Array.from(t.data as Float32Array)).toEqual(Array.from(feat));
  });

  it('a request naming exportedModel runs that model; the whole graph still runs from the same export', async () => {
    const one = await runs.run({
      graph,
      exportedModel: 'fork_share',
      inputs: { in: { datatype: 'FP32', shape: [1, 256], data: feat } },
    });
    expect(Object.keys(one.outputs).sort()).toEqual(['out_0', 'out_1']);
    const x = new Float32Array(64).fill(0.5);
    const whole = await runs.run({ graph, inputs: { x: { datatype: 'FP32', shape: [1, 64], data: x } } });
    expect(whole.status).toBe('completed');
    expect(Object.keys(whole.outputs).sort()).toEqual(['feat_1', 'logits']);
  });

  it('a model the export does not hold is refused naming the graph and the model', async () => {
    await expect(runs.runModel(graph, 'fork_nope', { graph, inputs: {} })).rejects.toThrow(
      "graph 'fork' exports no model 'fork_nope'",
    );
  });
});
