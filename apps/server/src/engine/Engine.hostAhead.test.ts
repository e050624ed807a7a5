// The request that reads a fused request's outputs next, run by that request's worker on its own copy of the reader's
// model (hostAhead.ts): the same answers as through the main thread, shown in the timeline, an early exit failing
// nothing, and a reloaded reader copied again.
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { GraphDoc, NodeTiming, ServerMessage, Tensor } from '@ensemble-studio/core';
import { decodeImage } from '../io/index.ts';
import { Engine } from './Engine.ts';
import { makeTestRepository } from '../testing/engineFixtures.ts';
import { ocrGraph } from '../testing/engineGraphs.ts';
import { makeFixtures } from '../testing/smokeSupport.ts';
import { placementKey, type Placer } from './placement.ts';
import { guestCopies, hostedInFlight } from './backends/onnx/WorkerInstance.ts';

const repo = makeTestRepository(['det', 'rec', 'cls']);
let engine: Engine;
let image: Tensor;
let blank: Tensor;
const graph: GraphDoc = ocrGraph('gate');

beforeAll(async () => {
  const fixtures = makeFixtures();
  image = decodeImage(readFileSync(fixtures.hello));
  blank = decodeImage(readFileSync(fixtures.blank));
  engine = await Engine.create({ repository: repo });
});
afterAll(() => engine.close());

const timing = (timings: NodeTiming[], node: string) => timings.find((t) => t.nodeId === node);

/** Runs the text image until rec's request is hosted in det's worker (its copy loads after the first few runs). */
async function untilHosted(limit = 80) {
  for (let i = 0; i < limit; i++) {
    const events: ServerMessage[] = [];
    const r = await engine.run({ graph, inputs: { image }, onEvent: (m) => events.push(m) });
    if (timing(r.timings, 'rec')?.hosted === true) return { r, events, runs: i + 1 };
  }
  throw new Error(`rec's request was not hosted in ${limit} runs`);
}

describe('the next request run by the worker before it', () => {
  it("runs rec in det's worker, with the same outputs and a timeline that says so", async () => {
    const apart = await engine.run({ graph, inputs: { image } });
    expect(timing(apart.timings, 'rec')?.hosted).not.toBe(true);
    const { r, events } = await untilHosted();
    expect(r.status).toBe('completed');
    expect(r.outputs).toEqual(apart.outputs);
    expect(r.outputs.texts!.data).toEqual(['HELLO 2026']);
    // It occupied one of rec's instances and ran rec's session and the CTC fused after it.
    const rec = timing(r.timings, 'rec')!;
    expect(rec.instance).toBe('rec_0');
    expect(rec.computeMs).toBeGreaterThan(0);
    expect(timing(r.timings, 'ctc')?.placement).toBe('fused:rec');
    expect(events.some((e) => e.type === 'node.failed')).toBe(false);
    expect(events.filter((e) => e.type === 'node.finished' && e.nodeId === 'rec')).toHaveLength(1);
    expect(hostedInFlight()).toBe(0);
  });

  it('an early exit after a hosted run fails nothing and leaves rec free for the next run', async () => {
    await untilHosted();
    // The placer measured hosting as the quicker way: each blank run below registers rec's request in det's worker.
    const { placer } = (engine as unknown as { ops: { placer: Placer } }).ops;
    const key = placementKey(graph.name, 'rec');
    for (let i = 0; i < 12; i++) {
      placer.costs.record(key, 'hosted', 1, 'test');
      placer.costs.record(key, 'unhosted', 1000, 'test');
    }
    for (let round = 0; round < 3; round++) {
      const events: ServerMessage[] = [];
      const exit = await engine.run({ graph, inputs: { image: blank }, onEvent: (m) => events.push(m) });
      expect(exit.status).toBe('exited_early');
      expect(exit.outputs.texts).toBeUndefined();
      expect(events.some((e) => e.type === 'node.failed')).toBe(false);
      expect(hostedInFlight()).toBe(0);
      // Its registration was undone: rec's only instance takes the next run's request (a held one would wait forever).
      const next = await engine.run({ graph, inputs: { image } });
      expect(next.status).toBe('completed');
      expect(next.outputs.texts!.data).toEqual(['HELLO 2026']);
    }
  });

  it('hosts a reloaded rec from its new copy', async () => {
    await untilHosted();
    await engine.reload(repo, ['rec']);
    const { r } = await untilHosted();
    expect(r.outputs.texts!.data).toEqual(['HELLO 2026']);
  });

  it("drops det's copy of rec when rec is unloaded", async () => {
    await untilHosted();
    expect(guestCopies()).toBeGreaterThan(0);
    engine.unloadModel('rec');
    await expect.poll(() => guestCopies()).toBe(0);
  });
});
