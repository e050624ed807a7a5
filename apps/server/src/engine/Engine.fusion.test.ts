// Op fusion (fusion.ts) end to end: the OCR example with ops run in det's, rec's and cls's workers must
// give what it gives with every op on its own, node by node, events and failures included.
import { readFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { GraphDoc, ServerMessage, Tensor } from '@ensemble-studio/core';
import { decodeImage } from '../io/index.ts';
import { Engine } from './Engine.ts';
import { makeTestRepository } from '../testing/engineFixtures.ts';
import { ocrGraph } from '../testing/engineGraphs.ts';
import { makeFixtures } from '../testing/smokeSupport.ts';
import { EXPLORE_EVERY, placementKey, type Placer } from './placement.ts';

const repo = makeTestRepository(['det', 'rec', 'cls']);
let fused: Engine;
let separate: Engine;
let image: Tensor;

beforeAll(async () => {
  image = decodeImage(readFileSync(makeFixtures().hello));
  [fused, separate] = await Promise.all([
    Engine.create({ repository: repo }),
    Engine.create({ repository: repo, fuseOps: false }),
  ]);
});
afterAll(async () => {
  await Promise.all([fused.close(), separate.close()]);
});

async function run(engine: Engine, graph: GraphDoc) {
  const events: ServerMessage[] = [];
  const r = await engine.run({ graph, inputs: { image }, onEvent: (m) => events.push(m) });
  return { r, events };
}

const instanceOf = (r: Awaited<ReturnType<typeof run>>['r'], node: string) =>
  r.timings.find((t) => t.nodeId === node)?.instance;

describe('op fusion', () => {
  it('reads the same text with the ops in the model workers, with events and timings per node', async () => {
    const [a, b] = [await run(fused, ocrGraph()), await run(separate, ocrGraph())];
    expect(a.r.status).toBe('completed');
    expect(a.r.outputs.texts!.data).toEqual(['HELLO 2026']);
    expect(a.r.outputs).toEqual(b.r.outputs);
    // Every op of a group ran in its model's worker, crop too (behind the condition, also evaluated there).
    expect(instanceOf(a.r, 'preprocess')).toBe(instanceOf(a.r, 'det'));
    expect(instanceOf(a.r, 'db')).toMatch(/^det_/);
    expect(instanceOf(a.r, 'crop')).toBe(instanceOf(a.r, 'det'));
    expect(instanceOf(a.r, 'ctc')).toBe('rec_0');
    expect(instanceOf(a.r, 'angle')).toBe('cls_0');
    expect(instanceOf(b.r, 'db')).not.toMatch(/^det_/);
    // Each node starts, then finishes, in dataflow order, with its own summaries (plain JSON thumbnails).
    const order = (type: string) => a.events.flatMap((e) => (e.type === type && 'nodeId' in e ? [e.nodeId] : []));
    for (const id of ['preprocess', 'det', 'db', 'crop', 'rec', 'ctc', 'cls', 'angle']) {
      expect(order('node.started').indexOf(id)).toBeGreaterThanOrEqual(0);
      expect(a.events.findIndex((e) => e.type === 'node.started' && e.nodeId === id)).toBeLessThan(
        a.events.findIndex((e) => e.type === 'node.finished' && e.nodeId === id),
      );
    }
    expect(order('node.finished').slice(0, 4)).toEqual(['image', 'preprocess', 'det', 'db']);
    const det = a.events.find((e) => e.type === 'node.finished' && e.nodeId === 'det');
    expect(det?.type === 'node.finished' && Array.isArray(det.outputs['sigmoid_0.tmp_0']?.thumbnail?.data)).toBe(true);
    const span = (id: string) => a.r.timings.find((t) => t.nodeId === id)!;
    expect(span('preprocess').endMs).toBeLessThanOrEqual(span('det').startMs + 1e-6);
    expect(span('det').endMs).toBeLessThanOrEqual(span('db').startMs + 1e-6);
    // Each member reports its own compute, not the group's: together they fit in the group's span (a timing
    // comparison between members, det against db, could fail whenever the machine preempted db's thread).
    const members = ['preprocess', 'det', 'db'].map(span);
    for (const m of members) expect(m.computeMs).toBeGreaterThan(0);
    const computed = members.reduce((a, m) => a + m.computeMs, 0);
    expect(computed).toBeLessThanOrEqual(span('db').endMs - span('preprocess').startMs + 1e-6);
  });

  it('shows where each op ran, and runs the ops apart on an exploring decision to measure them there', async () => {
    const graph = { ...ocrGraph(), name: 'ocr-placement' };
    const placements = (r: Awaited<ReturnType<typeof run>>['r']) =>
      Object.fromEntries(r.timings.flatMap((t) => (t.placement ? [[t.nodeId, t.placement]] : [])));
    const first = await run(fused, graph);
    expect(placements(first.r)).toEqual({
      preprocess: 'fused:det',
      db: 'fused:det',
      has_text: 'fused:det',
      crop: 'fused:det',
      ctc: 'fused:rec',
      angle: 'fused:cls',
    });
    const finished = first.events.find((e) => e.type === 'node.finished' && e.nodeId === 'ctc');
    expect(finished?.type === 'node.finished' && finished.timing.placement).toBe('fused:rec');
    // Runs stay fused until an exploring decision (the EXPLORE_EVERY-th) runs each unit apart, never
    // measured there before (in a worker first).
    const runs = [first];
    for (let i = 0; i < EXPLORE_EVERY && placements(runs.at(-1)!.r).ctc === 'fused:rec'; i++)
      runs.push(await run(fused, graph));
    const second = runs.at(-1)!;
    for (const r of runs.slice(0, -1)) expect(placements(r.r)).toEqual(placements(first.r));
    expect(second.r.outputs).toEqual(first.r.outputs);
    const apart = placements(second.r);
    for (const id of ['preprocess', 'db', 'crop', 'ctc', 'angle']) expect(apart[id]).toMatch(/^(inline|op-worker)$/);
    expect(instanceOf(second.r, 'db')).not.toMatch(/^det_/);
    // The condition reads db's boxes: with db apart it runs on the main thread (where nothing is placed).
    expect(apart.has_text).toBeUndefined();
    expect(instanceOf(second.r, 'has_text')).toBeUndefined();
    expect(Object.values(placements((await run(separate, graph)).r))).not.toContainEqual(
      expect.stringMatching(/^fused/),
    );
  });

  it("measures each model's fused requests woken ahead of their reply and not, to choose between them", async () => {
    const graph = { ...ocrGraph(), name: 'ocr-wake' };
    const { costs } = (fused as unknown as { ops: { placer: Placer } }).ops.placer;
    const measured = (node: string) =>
      (['woken', 'unwoken'] as const).every((w) => costs.estimate(placementKey(graph.name, node), w) !== undefined);
    const ways = new Set<string>();
    for (let i = 0; i < 3 * EXPLORE_EVERY && !['det', 'rec', 'cls'].every(measured); i++) {
      const { r } = await run(fused, graph);
      expect(r.outputs.texts!.data).toEqual(['HELLO 2026']);
      for (const t of r.timings) if (t.wokeAhead !== undefined) ways.add(`${t.nodeId} ${t.wokeAhead}`);
    }
    // Each has steps after its session (DB, CTC, the angle): both choices were measured, by its hop.
    for (const node of ['det', 'rec', 'cls']) expect(measured(node)).toBe(true);
    // The timeline says which way each request went.
    for (const node of ['det', 'rec', 'cls'])
      for (const woke of [true, false]) expect(ways).toContain(`${node} ${woke}`);
  });

  it('records what a run teaches the placer once its caller has the result, not before', async () => {
    const graph = { ...ocrGraph(), name: 'ocr-after' };
    const { costs } = (fused as unknown as { ops: { placer: Placer } }).ops.placer;
    const key = placementKey(graph.name, 'db');
    // A blank image: det's request, with DB and the condition in its worker, is the run's only one and ends it.
    const blank: Tensor = { ...image, data: new Uint8Array(image.data.length).fill(255) };
    const turnOver = () => new Promise((resolve) => setImmediate(resolve));
    let checked = 0;
    for (let i = 0; i < 3 * EXPLORE_EVERY && checked < 3; i++) {
      await turnOver();
      const before = costs.sampledAt(key, 'fused');
      const r = await fused.run({ graph, inputs: { image: blank } });
      expect(r.status).toBe('exited_early');
      // DB ran in det's worker (not apart, on an exploring decision): its time there is learnt from the reply.
      if (r.timings.find((t) => t.nodeId === 'db')!.placement !== 'fused:det') continue;
      expect(costs.sampledAt(key, 'fused')).toBe(before);
      await turnOver();
      expect(costs.sampledAt(key, 'fused')).toBeGreaterThan(before);
      checked++;
    }
    expect(checked).toBe(3);
  });

  // On one CPU no worker polls (spinAhead.ts).
  it.skipIf(availableParallelism() < 2)(
    "measures a lone run's first request with its worker polling for it and not; a run beside another is not asked",
    async () => {
      const graph = { ...ocrGraph(), name: 'ocr-spin' };
      const { costs } = (fused as unknown as { ops: { placer: Placer } }).ops.placer;
      const key = placementKey(graph.name, 'det');
      const measured = () => (['spun', 'unspun'] as const).every((s) => costs.estimate(key, s) !== undefined);
      const ways = new Set<boolean>();
      for (let i = 0; i < 3 * EXPLORE_EVERY && !measured(); i++) {
        const { r } = await run(fused, graph);
        expect(r.outputs.texts!.data).toEqual(['HELLO 2026']);
        const det = r.timings.find((t) => t.nodeId === 'det')!;
        if (det.spunAhead !== undefined) ways.add(det.spunAhead);
        // Only det's request is sent first; rec's and cls's follow det's reply.
        for (const t of r.timings) if (t.nodeId !== 'det') expect(t.spunAhead).toBeUndefined();
      }
      expect(measured()).toBe(true);
      expect([...ways].sort()).toEqual([false, true]); // the timeline says which way it went
      // A run that starts while another is in flight asks nothing of its workers: their CPUs may be needed.
      const [, second] = await Promise.all([run(fused, graph), run(fused, graph)]);
      expect(second.r.timings.find((t) => t.nodeId === 'det')!.spunAhead).toBeUndefined();
    },
  );

  it("exits early from inside det's worker as it does on the main thread, for every exit strategy", async () => {
    const blank: Tensor = { datatype: 'UINT8', shape: [320, 480, 3], data: new Uint8Array(320 * 480 * 3).fill(255) };
    const exitRun = async (engine: Engine, strategy: 'gate' | 'bls' | 'error') => {
      const events: ServerMessage[] = [];
      const graph = { ...ocrGraph(strategy), name: `ocr-exit-${strategy}` };
      const r = await engine.run({ graph, inputs: { image: blank }, onEvent: (m) => events.push(m) });
      const of = (type: string) => events.flatMap((e) => (e.type === type && 'nodeId' in e ? [e.nodeId] : [])).sort();
      const summaries = events.flatMap((e) =>
        e.type === 'node.finished' && e.nodeId === 'has_text' ? [Object.keys(e.outputs)] : [],
      );
      return {
        status: r.status,
        outputs: r.outputs,
        exit: r.exit,
        error: r.error,
        timeline: r.timings.map((t) => t.nodeId).sort(),
        started: of('node.started'),
        finished: of('node.finished'),
        skipped: of('node.skipped'),
        failed: of('node.failed'),
        last: events.at(-1)?.type,
        summaries,
        placement: r.timings.find((t) => t.nodeId === 'has_text')?.placement,
      };
    };
    for (const strategy of ['gate', 'bls', 'error'] as const) {
      const [a, b] = [await exitRun(fused, strategy), await exitRun(separate, strategy)];
      expect(a.placement).toBe('fused:det');
      expect(b.placement).toBeUndefined();
      expect({ ...a, placement: undefined }).toEqual({ ...b, placement: undefined });
      expect(a.skipped).toEqual(expect.arrayContaining(['crop', 'rec', 'cls']));
      expect(a.status).toBe(strategy === 'error' ? 'failed' : 'exited_early');
    }
  });

  it('blames a failing fused op on that op, keeps what ran before it, and skips the rest', async () => {
    // A graph name of its own: the costs measured so far (per graph and node) would run ctc apart.
    const ocr = ocrGraph();
    const missing = { dictionary: 'rec/no_such_dictionary.txt' };
    const nodes = ocr.nodes.map((n) =>
      n.id === 'ctc' && n.kind === 'op'
        ? { ...n, params: { ...n.params, values: { ...n.params.values, ...missing } } }
        : n,
    );
    const graph = { ...ocr, name: 'ocr-failing-op', nodes };
    const { r, events } = await run(fused, graph);
    expect(r.status).toBe('failed');
    expect(r.error).toMatchObject({
      code: 'node-failed',
      nodeId: 'ctc',
      message: expect.stringContaining("node 'ctc'"),
    });
    expect(events.find((e) => e.type === 'node.finished' && e.nodeId === 'rec')).toBeDefined();
    expect(events.find((e) => e.type === 'node.failed' && e.nodeId === 'ctc')).toBeDefined();
    expect(r.timings.find((t) => t.nodeId === 'rec')).toMatchObject({ instance: 'rec_0' });
    expect(events.some((e) => e.type === 'node.finished' && e.nodeId === 'ctc')).toBe(false);
  });

  it('blames a crashed instance on the model of the group', async () => {
    await fused.crashInstance('det', 0);
    const { r, events } = await run(fused, ocrGraph());
    expect(r.error).toMatchObject({ code: 'instance-crashed', nodeId: 'det' });
    expect(events.find((e) => e.type === 'node.skipped' && e.nodeId === 'db')).toBeDefined();
    await expect.poll(async () => (await run(fused, ocrGraph())).r.status, { timeout: 20000 }).toBe('completed');
  });

  it('counts one inference a request for a model without max_batch_size, fused or not, whatever its first dim', async () => {
    const twoLines = decodeImage(readFileSync(makeFixtures().twoLines));
    for (const engine of [fused, separate]) {
      const before = engine.metrics().models.rec!.inferenceCount;
      const r = await engine.run({ graph: ocrGraph(), inputs: { image: twoLines } });
      expect(r.outputs.texts!.data).toHaveLength(2); // rec ran on crops of shape [2, 3, 48, W]
      expect(r.timings.find((t) => t.nodeId === 'rec')!.batchSize).toBe(1);
      expect(engine.metrics().models.rec!.inferenceCount - before).toBe(1);
    }
  });
});
