// Triton's repository "unload" inside a running engine: the model's runtimes (under any node settings) close and
// nothing starts it again, not even a graph that overrides its settings, until a reload loads it.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Tensor } from '@ensemble-studio/core';
import { Engine } from './Engine.ts';
import { writeEngineRepository } from '../testing/engineFixtureRepository.ts';
import { singleModelGraph } from '../testing/engineGraphs.ts';
import { tempDir } from '../testing/tempDir.ts';
import { SYNTHETIC } from '../onnx/synthetic.ts';

const dir = tempDir('engine-unload-');
let engine: Engine;
beforeAll(async () => {
  engine = await Engine.create({ repository: writeEngineRepository(dir, ['head']) });
});
afterAll(async () => engine?.close());

const headGraph = (settings?: Parameters<typeof singleModelGraph>[4]) =>
  singleModelGraph(
    'head',
    [{ name: 'feat', dims: [SYNTHETIC.F] }],
    [{ name: 'logits', dims: [SYNTHETIC.C] }],
    64,
    settings,
  );
const feat = (): Tensor => ({ datatype: 'FP32', shape: [1, SYNTHETIC.F], data: new Float32Array(SYNTHETIC.F) });
const oneInstance = { instance_group: [{ count: 1, kind: 'KIND_CPU' as const }] };

describe('Engine.unloadModel', () => {
  it('closes every runtime of the model; runs needing it fail, settings overrides included, until a reload', async () => {
    expect((await engine.run({ graph: headGraph(oneInstance), inputs: { feat: feat() } })).status).toBe('completed');
    expect(Object.keys(engine.health().models).filter((k) => k.startsWith('head'))).toHaveLength(2);

    engine.unloadModel('head');
    expect(engine.modelUnavailable('head')).toBe("model 'head' is unloaded");
    for (const graph of [headGraph(), headGraph(oneInstance)]) {
      const run = await engine.run({ graph, inputs: { feat: feat() } });
      expect([run.status, run.error]).toEqual([
        'failed',
        { code: 'model-unavailable', message: "model 'head' is unloaded" },
      ]);
    }
    // Nothing was started for the settings override either.
    expect(Object.keys(engine.health().models).filter((k) => k.startsWith('head'))).toEqual(['head']);

    await engine.reload(writeEngineRepository(dir, ['head']), ['head']);
    expect(engine.modelUnavailable('head')).toBeUndefined();
    for (const graph of [headGraph(), headGraph(oneInstance)])
      expect((await engine.run({ graph, inputs: { feat: feat() } })).status).toBe('completed');
  });
});
