// A graph run as exported (its generated model.py files in python3 processes) agrees with the same graph
// run on the engine's TypeScript ops, on the examples' inputs, under every condition strategy.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ConditionStrategy, GraphDoc, Tensor } from '../../packages/core/src/index.ts';
import { Engine } from '../../apps/server/src/engine/Engine.ts';
import { ExportedRuns } from '../../apps/server/src/engine/exportedRuns.ts';
import { makeFixtures } from '../../apps/server/src/testing/smokeSupport.ts';
import { decodeImage } from '../../apps/server/src/io/image.ts';
import { loadRepository } from '../../apps/server/src/repo/loadRepository.ts';
import type { Repository } from '../../apps/server/src/repo/types.ts';
import { requirePythonNumpy } from '../python/harness.ts';

const EXAMPLES = join(import.meta.dirname, '..', '..', 'examples', 'model_repository');
let repo: Repository;
let engine: Engine;
let exported: ExportedRuns;

beforeAll(async () => {
  requirePythonNumpy();
  repo = await loadRepository(EXAMPLES);
  engine = await Engine.create({ repository: repo, lazy: true });
  exported = new ExportedRuns(repo, (options) => Engine.create(options));
});
afterAll(async () => {
  await exported?.close();
  await engine?.close();
});

function withStrategy(g: GraphDoc, strategy: ConditionStrategy): GraphDoc {
  return {
    ...g,
    name: `${g.name}_${strategy}`,
    nodes: g.nodes.map((n) => (n.kind === 'condition' ? { ...n, params: { ...n.params, strategy } } : n)),
  };
}

/** Largest absolute difference between two numeric tensors of one shape (Infinity when shapes differ). */
function maxDiff(a: Tensor, b: Tensor): number {
  if (a.shape.join() !== b.shape.join()) return Infinity;
  let d = 0;
  for (let i = 0; i < a.data.length; i++) d = Math.max(d, Math.abs(Number(a.data[i]) - Number(b.data[i])));
  return d;
}

function expectAgree(ts: Record<string, Tensor>, py: Record<string, Tensor>, tolerance: number): void {
  expect(Object.keys(py).sort()).toEqual(Object.keys(ts).sort());
  for (const [name, t] of Object.entries(ts)) {
    const other = py[name]!;
    expect(other.datatype, name).toBe(t.datatype);
    if (Array.isArray(t.data)) expect(other.data, name).toEqual(t.data);
    else expect(maxDiff(t, other), name).toBeLessThanOrEqual(tolerance);
  }
}

describe('run as exported', () => {
  it('shared-features: the generated copy router feeds both heads as the engine does', async () => {
    const x: Tensor = {
      datatype: 'FP32',
      shape: [3, 64],
      data: Float32Array.from({ length: 192 }, (_, i) => Math.sin(i)),
    };
    const graph = repo.graphs['shared-features']!;
    const [ts, py] = await Promise.all([engine.run({ graph, inputs: { x } }), exported.run({ graph, inputs: { x } })]);
    expect([ts.status, py.status, py.error?.message]).toEqual(['completed', 'completed', undefined]);
    expectAgree(ts.outputs, py.outputs, 1e-5);
    // What ran is the exported repository: every step a model, the router one of the generated Python models.
    const ran = await exported.graphFor(graph);
    expect(ran.nodes.filter((n) => n.kind !== 'input' && n.kind !== 'output').every((n) => n.kind === 'model')).toBe(
      true,
    );
    expect(ran.nodes.some((n) => n.kind === 'model' && /^shared-features_/.test(n.params.model))).toBe(true);
    // The same through the engine's own option (what the CLI's --exported and the WebSocket's `exported` use).
    const viaEngine = await engine.run({ graph, inputs: { x }, exported: true });
    expectAgree(ts.outputs, viaEngine.outputs, 1e-5);
  });

  for (const strategy of ['gate', 'bls', 'error'] as const) {
    it(`ocr (${strategy}): the generated ops, gate and BLS read the same text as the TypeScript ops`, async () => {
      const fx = makeFixtures();
      const graph = withStrategy(repo.graphs.ocr!, strategy);
      const image = decodeImage(readFileSync(fx.hello));
      const [ts, py] = await Promise.all([
        engine.run({ graph, inputs: { image } }),
        exported.run({ graph, inputs: { image } }),
      ]);
      expect([ts.status, py.status, py.error?.message]).toEqual(['completed', 'completed', undefined]);
      expect(py.outputs.texts?.data).toEqual(ts.outputs.texts?.data);
      expectAgree(ts.outputs, py.outputs, 1e-3);
      // A blank page ends early: no text either way (gate: no response; bls: the declared empty outputs; error: the user's message).
      const blank = decodeImage(readFileSync(fx.blank));
      const [tsb, pyb] = await Promise.all([
        engine.run({ graph, inputs: { image: blank } }),
        exported.run({ graph, inputs: { image: blank } }),
      ]);
      expect(tsb.status).toBe(strategy === 'error' ? 'failed' : 'exited_early');
      if (strategy === 'error') {
        expect(pyb.status).toBe('failed');
        expect(pyb.error?.message).toContain(tsb.exit?.message ?? tsb.error?.message?.split(', ').pop() ?? '');
      } else {
        expect(pyb.status).toBe('completed');
        expectAgree(tsb.outputs, pyb.outputs, 0);
      }
    });
  }
});
