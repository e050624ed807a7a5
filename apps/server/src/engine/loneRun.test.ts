// A lone run's way to its first request: its choices made after the lone run before it (decidedAhead.ts), its first
// fused request sent before its scheduler is built and taken by the scheduler's launch (firstRequests.ts); runs in
// company, and groups not fed by the request's own inputs, send theirs as the scheduler reaches them.
import { readFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { GraphDoc, Tensor } from '@ensemble-studio/core';
import { decodeImage } from '../io/index.ts';
import { Engine } from './Engine.ts';
import { FirstRequests } from './firstRequests.ts';
import { RunFusion } from './runFusion.ts';
import { indexGraph } from './graphIndex.ts';
import { planFusion } from './fusion.ts';
import { makeTestRepository } from '../testing/engineFixtures.ts';
import { ocrGraph } from '../testing/engineGraphs.ts';
import { makeFixtures } from '../testing/smokeSupport.ts';

const repo = makeTestRepository(['det', 'rec', 'cls']);
let engine: Engine;
let image: Tensor;
beforeAll(async () => {
  image = decodeImage(readFileSync(makeFixtures().hello));
  engine = await Engine.create({ repository: repo });
});
afterAll(() => engine.close());

/** Each claim's answer, by group first member: whether the scheduler took a request already sent. */
function watchClaims() {
  const taken: [string, boolean][] = [];
  const original = FirstRequests.prototype.claim;
  const spy = vi.spyOn(FirstRequests.prototype, 'claim').mockImplementation(function (this: FirstRequests, ...args) {
    const sent = original.apply(this, args);
    taken.push([args[0].members[0]!.id, sent !== undefined]);
    return sent;
  });
  return { taken, restore: () => spy.mockRestore() };
}

describe('a lone run’s first requests', () => {
  // On one CPU nothing is sent ahead: what follows the post would only take turns with the worker it woke.
  const twoCpus = availableParallelism() >= 2;

  it.runIf(twoCpus)(
    'sends det’s request as the run begins; the scheduler takes it, with the same text and timings from 0',
    async () => {
      const watch = watchClaims();
      try {
        const r = await engine.run({ graph: ocrGraph(), inputs: { image } });
        expect(r.outputs.texts!.data).toEqual(['HELLO 2026']);
        // Taken for det's group; asked for and not found for the groups behind it.
        expect(watch.taken.filter(([, sent]) => sent)).toEqual([['preprocess', true]]);
        expect(watch.taken.length).toBeGreaterThan(1);
        for (const t of r.timings) expect(t.startMs).toBeGreaterThanOrEqual(0);
        // The group's span starts where its request was sent, before an instance took it (not at the later launch).
        const pre = r.timings.find((t) => t.nodeId === 'preprocess')!;
        expect(pre.placement).toBe('fused:det');
        expect(pre.startMs).toBeLessThanOrEqual(pre.computeStartMs!);
      } finally {
        watch.restore();
      }
    },
  );

  it.runIf(twoCpus)(
    'sends nothing ahead for a run in company: only the first of two, alone as it began, did',
    async () => {
      const watch = watchClaims();
      try {
        const rs = await Promise.all([1, 2].map(() => engine.run({ graph: ocrGraph(), inputs: { image } })));
        for (const r of rs) expect(r.outputs.texts!.data).toEqual(['HELLO 2026']);
        expect(watch.taken.filter(([, sent]) => sent)).toEqual([['preprocess', true]]);
      } finally {
        watch.restore();
      }
    },
  );

  it('is refused, as the scheduler would refuse it, when the first model has no runtime', () => {
    const graph = ocrGraph();
    const fused = planFusion(graph, () => true);
    expect(() =>
      FirstRequests.send(
        { graph: graph.name, runtimes: new Map(), ops: { placer: undefined as never } },
        indexGraph(graph),
        fused,
        { image },
        { signal: new AbortController().signal as never, observed: false },
      ),
    ).toThrow("model node 'det' has no runtime");
  });

  it('sends nothing for a group fed by another node, or when the request lacks its input', () => {
    const graph: GraphDoc = ocrGraph();
    const fused = planFusion(graph, () => true);
    const idx = indexGraph(graph);
    const deps = { graph: graph.name, runtimes: new Map(), ops: { placer: undefined as never } };
    const ctx = { signal: new AbortController().signal as never, observed: false };
    // No image: det's group is not sent ahead (and nothing else could be).
    expect(FirstRequests.send(deps, idx, fused, {}, ctx)).toBeUndefined();
    // Only rec's and cls's groups: their first members read det's outputs, not the request's.
    const later = new Map([...fused].filter(([id]) => id !== 'preprocess'));
    expect(later.size).toBeGreaterThan(0);
    expect(FirstRequests.send(deps, idx, later, { image }, ctx)).toBeUndefined();
  });
});

describe('a lone run of a fused graph', () => {
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
