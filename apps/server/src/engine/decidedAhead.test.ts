// A lone run's choices are made once the lone run before it has ended, and each is used once, by a run of the same
// prepared graph with the same runtimes.
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { Tensor } from '@ensemble-studio/core';
import { decodeImage } from '../io/index.ts';
import { DecidedAhead } from './decidedAhead.ts';
import { Engine } from './Engine.ts';
import type { FusedGroup } from './fusion.ts';
import { indexGraph } from './graphIndex.ts';
import type { ModelRuntime } from './ModelRuntime.ts';
import { RunFusion } from './runFusion.ts';
import { makeTestRepository } from '../testing/engineFixtures.ts';
import { ocrGraph } from '../testing/engineGraphs.ts';
import { makeFixtures } from '../testing/smokeSupport.ts';

describe('DecidedAhead', () => {
  const index = indexGraph(ocrGraph());
  const plan = new Map<string, FusedGroup>();
  const runtimes = new Map<string, ModelRuntime>();
  const choices = { fused: plan, spins: [] };

  it('gives the choices made for a graph once', () => {
    const ahead = new DecidedAhead();
    expect(ahead.take(index, plan, runtimes)).toBeUndefined();
    ahead.put(index, plan, runtimes, choices);
    expect(ahead.take(index, plan, runtimes)).toBe(choices);
    expect(ahead.take(index, plan, runtimes)).toBeUndefined();
  });

  it('drops choices made for another fusion plan or other runtimes (the graph prepared again)', () => {
    const ahead = new DecidedAhead();
    ahead.put(index, plan, runtimes, choices);
    expect(ahead.take(index, new Map(), runtimes)).toBeUndefined();
    expect(ahead.take(index, plan, runtimes)).toBeUndefined(); // taken by the first, even unused
    ahead.put(index, plan, runtimes, choices);
    expect(ahead.take(index, plan, new Map())).toBeUndefined();
  });
});

describe('a lone run of a fused graph', () => {
  const repo = makeTestRepository(['det', 'rec', 'cls']);
  let engine: Engine;
  let image: Tensor;
  beforeAll(async () => {
    image = decodeImage(readFileSync(makeFixtures().hello));
    engine = await Engine.create({ repository: repo });
  });
  afterAll(() => engine.close());

  it('makes its fusion choices after the lone run before it, not on its own way to its first request', async () => {
    const graph = ocrGraph();
    let running = false;
    const during: boolean[] = [];
    const original = RunFusion.prototype.groups;
    const groups = vi.spyOn(RunFusion.prototype, 'groups').mockImplementation(function (this: RunFusion, ...args) {
      during.push(running);
      return original.apply(this, args);
    });
    try {
      for (let i = 0; i < 3; i++) {
        running = true;
        const r = await engine.run({ graph, inputs: { image } });
        running = false;
        expect(r.outputs.texts!.data).toEqual(['HELLO 2026']);
        await new Promise((resolve) => setImmediate(resolve)); // the choices for the next run are made here
      }
    } finally {
      groups.mockRestore();
    }
    // The first run decides as it starts (nothing was decided before it); each run decides the next one's after it.
    expect(during).toEqual([true, false, false, false]);
  });

  it('refuses bad inputs after lone runs as before (their workers polled for nothing), and serves the next run', async () => {
    const graph = ocrGraph();
    for (let i = 0; i < 2; i++) await engine.run({ graph, inputs: { image } });
    await new Promise((resolve) => setImmediate(resolve));
    const bad = await engine.run({ graph, inputs: { image: { ...image, shape: [1, ...image.shape] } } });
    expect(bad.status).toBe('failed');
    expect(bad.error!.message).toMatch(/image/);
    const next = await engine.run({ graph, inputs: { image } });
    expect(next.outputs.texts!.data).toEqual(['HELLO 2026']);
  });
});
