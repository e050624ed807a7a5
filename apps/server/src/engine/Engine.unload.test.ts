// Triton's repository "unload" inside a running engine: the model's runtimes (under any node settings) close once
// the requests they accepted are answered, queued ones included, and nothing starts it again, not even a graph that
// overrides its settings, until a reload loads it.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Tensor } from '@ensemble-studio/core';
import { Engine } from './Engine.ts';
import { loadRepository } from '../repo/loadRepository.ts';
import { writeEngineRepository } from '../testing/engineFixtureRepository.ts';
import { writePythonModels } from '../testing/pythonModels.ts';
import { modelChainGraph, singleModelGraph } from '../testing/engineGraphs.ts';
import { tempDir } from '../testing/tempDir.ts';
import { SYNTHETIC } from '../onnx/synthetic.ts';

// The stub needs numpy: Debian's python3 has it (the one on PATH may not).
process.env.STUDIO_PYTHON ||= '/usr/bin/python3';

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

  it('a request queued in the dynamic batcher when the model is unloaded completes; then finalize runs', async () => {
    const pyDir = tempDir('engine-unload-py-');
    writePythonModels(pyDir, ['finalizing_batched']);
    const modelDir = join(pyDir, 'finalizing_batched');
    const py = await Engine.create({ repository: await loadRepository(pyDir) });
    try {
      const graph = singleModelGraph('finalizing_batched', [{ name: 'X', dims: [1] }], [{ name: 'Y', dims: [1] }], 4);
      const x = (v: number): Record<string, Tensor> => ({
        X: { datatype: 'FP32', shape: [1, 1], data: new Float32Array([v]) },
      });
      const held = py.run({ graph, inputs: x(1) });
      await until(() => existsSync(join(modelDir, 'executing')), 'the held execute to begin');
      // The one instance is busy: the second request waits in the batcher, holding the runtime.
      let entered!: () => void;
      const inBatcher = new Promise<void>((resolve) => (entered = resolve));
      const queued = py.run({
        graph,
        inputs: x(0),
        onEvent: (e) => void (e.type === 'node.started' && e.nodeId === 'm' && entered()),
      });
      await inBatcher;
      py.unloadModel('finalizing_batched');
      writeFileSync(join(modelDir, 'release'), '');
      const runs = await Promise.all([held, queued]);
      expect(runs.map((r) => [r.status, r.error])).toEqual([
        ['completed', undefined],
        ['completed', undefined],
      ]);
      const finalized = join(modelDir, 'finalized');
      await until(() => existsSync(finalized), "the model's finalize");
      expect(readFileSync(finalized, 'utf8').trim().split('\n')).toHaveLength(1);
    } finally {
      await py.close();
    }
  });
});

describe('Engine.unloadModel during a run', () => {
  it("a run's later step runs on the model unloaded while an earlier step ran, then that model finalizes", async () => {
    const pyDir = tempDir('engine-unload-chain-');
    writePythonModels(pyDir, ['finalizing', 'finalizing_batched']);
    const [first, second] = [join(pyDir, 'finalizing'), join(pyDir, 'finalizing_batched')];
    // The second step is given the first's pid (above 0): it may go on at once.
    writeFileSync(join(second, 'release'), '');
    const py = await Engine.create({ repository: await loadRepository(pyDir) });
    try {
      const graph = modelChainGraph(
        ['finalizing', 'finalizing_batched'],
        { name: 'X', dims: [1] },
        { name: 'Y', dims: [1] },
      );
      const run = py.run({ graph, inputs: { X: { datatype: 'FP32', shape: [1], data: new Float32Array([1]) } } });
      await until(() => existsSync(join(first, 'executing')), 'the first step to begin');
      py.unloadModel('finalizing_batched');
      writeFileSync(join(first, 'release'), '');
      const r = await run;
      expect([r.status, r.error]).toEqual(['completed', undefined]);
      const finalized = join(second, 'finalized');
      await until(() => existsSync(finalized), "the unloaded model's finalize");
      expect(Number(readFileSync(finalized, 'utf8'))).toBe((r.outputs.Y!.data as Float32Array)[0]);
      expect(existsSync(join(first, 'finalized'))).toBe(false);
    } finally {
      await py.close();
    }
  });
});

/** Polls `check` every 50 ms until it is true; rejects naming `what` after `ms`. */
async function until(check: () => boolean, what: string, ms = 20_000): Promise<void> {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}
