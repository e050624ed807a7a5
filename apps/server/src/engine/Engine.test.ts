import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as ort from 'onnxruntime-node';
import type { ServerMessage, Tensor } from '@ensemble-studio/core';
import { Engine } from './Engine.ts';
import { RunCancel } from './cancel.ts';
import { makeTestRepository } from '../testing/engineFixtures.ts';
import { fanoutGraph, ocrGraph, singleModelGraph, vadGraph } from '../testing/engineGraphs.ts';
import { mulberry32, SYNTHETIC } from '../onnx/synthetic.ts';

const { D, F, C } = SYNTHETIC;
const repo = makeTestRepository(['extractor', 'head', 'det', 'rec', 'cls', 'vad'], {
  head: { instance_group: [{ count: 2, kind: 'KIND_GPU' }] },
});
let engine: Engine;

function xs(rows: number, seed: number): Tensor {
  const r = mulberry32(seed);
  return { datatype: 'FP32', shape: [rows, D], data: Float32Array.from({ length: rows * D }, () => r() * 2 - 1) };
}

function collect() {
  const events: ServerMessage[] = [];
  return { events, onEvent: (m: ServerMessage) => events.push(m), types: () => events.map((e) => e.type) };
}

beforeAll(async () => {
  engine = await Engine.create({ repository: repo, gpu: 'auto' });
});
afterAll(async () => {
  await engine.close();
});

describe('Engine', () => {
  it('loads and warms every model, reporting cold start and the CPU fallback for KIND_GPU', () => {
    const h = engine.health();
    expect(h.models.extractor).toMatchObject({ state: 'ready', instances: 1 });
    expect(h.models.head).toMatchObject({ state: 'ready', instances: 2 });
    expect(h.models.det!.coldStartMs).toBeGreaterThan(0);
    expect(h.models.det!.firstRunMs).toBeGreaterThan(0);
    expect(h.executionProviders.inUse.head).toBe('cpu');
    expect(h.notices.join('\n')).toMatch(/head.*KIND_GPU.*CPU/);
    expect(h.executionProviders.available).toContain('cpu');
  });

  it('runs a fan-out graph in workers and matches onnxruntime called directly', async () => {
    const c = collect();
    const x = xs(4, 1);
    const r = await engine.run({ graph: fanoutGraph(), inputs: { x }, onEvent: c.onEvent });
    expect(r.status).toBe('completed');
    expect(r.outputs.logits_a!.shape).toEqual([4, C]);
    const ext = await ort.InferenceSession.create(repo.modelFile('extractor')!);
    const head = await ort.InferenceSession.create(repo.modelFile('head')!);
    const feat = (await ext.run({ x: new ort.Tensor('float32', x.data as Float32Array, [4, D]) })).feat!;
    const ref = (await head.run({ feat })).logits!.data as Float32Array;
    expect(Array.from(r.outputs.logits_a!.data as Float32Array)).toEqual(Array.from(ref));
    expect(Array.from(r.outputs.logits_b!.data as Float32Array)).toEqual(Array.from(ref));
    expect(c.types()[0]).toBe('run.started');
    expect(c.types()).toContain('notice'); // head runs on CPU although it asked for a GPU
    expect(c.types().at(-1)).toBe('run.completed');
    const finished = c.events
      .filter((e) => e.type === 'node.finished')
      .map((e) => e.type === 'node.finished' && e.nodeId);
    expect(finished).toEqual(expect.arrayContaining(['extractor', 'head_a', 'head_b']));
    const headTimings = r.timings.filter((t) => t.nodeId.startsWith('head'));
    expect(new Set(headTimings.map((t) => t.instance))).toEqual(new Set(['head_0', 'head_1']));
  });

  it('batches concurrent runs dynamically and splits the results back exactly', async () => {
    const graph = singleModelGraph('head', [{ name: 'feat', dims: [F] }], [{ name: 'logits', dims: [C] }], 64, {
      dynamic_batching: { max_queue_delay_microseconds: 20000, preferred_batch_size: [8] },
    });
    const inputs = Array.from({ length: 8 }, (_, i) => ({
      datatype: 'FP32' as const,
      shape: [1, F],
      data: new Float32Array(F).fill(i / 8),
    }));
    const solo = await Promise.all(
      inputs.map(
        async (feat) =>
          (
            await engine.run({
              graph: singleModelGraph('head', [{ name: 'feat', dims: [F] }], [{ name: 'logits', dims: [C] }], 64),
              inputs: { feat },
            })
          ).outputs.logits!,
      ),
    );
    const batched = await Promise.all(inputs.map((feat) => engine.run({ graph, inputs: { feat } })));
    batched.forEach((r, i) => {
      expect(r.timings[0]!.batchSize).toBe(8);
      const a = r.outputs.logits!.data as Float32Array;
      const b = solo[i]!.data as Float32Array;
      a.forEach((v, k) => expect(Math.abs(v - b[k]!)).toBeLessThan(1e-4));
    });
    const m = engine.metrics().models;
    expect(Object.values(m).some((s) => (s.batchSizes[8] ?? 0) >= 1)).toBe(true);
  });

  it('rejects bad inputs with a clear error', async () => {
    const g = fanoutGraph();
    expect((await engine.run({ graph: g, inputs: {} })).error).toMatchObject({
      code: 'invalid-input',
      message: expect.stringContaining("input 'x' is missing"),
    });
    expect(
      (await engine.run({ graph: g, inputs: { x: { datatype: 'FP32', shape: [1, 3], data: new Float32Array(3) } } }))
        .error?.message,
    ).toContain('dim 1 must be 64');
    expect((await engine.run({ graph: g, inputs: { x: xs(1, 1), y: xs(1, 1) } })).error?.message).toContain(
      "unexpected input 'y'",
    );
    expect(
      (await engine.run({ graph: g, inputs: { x: { datatype: 'INT32', shape: [1, D], data: new Int32Array(D) } } }))
        .error?.message,
    ).toContain('must be FP32');
  });

  it('times out and cancels', async () => {
    const big = { x: xs(64, 2) };
    const t = await engine.run({ graph: fanoutGraph(), inputs: big, timeoutMs: 1 });
    expect(t.status).toBe('failed');
    expect(t.error?.code).toBe('timeout');
    const ac = new AbortController();
    const c = collect();
    const p = engine.run({ graph: fanoutGraph(), inputs: big, signal: ac.signal, onEvent: c.onEvent });
    ac.abort();
    const r = await p;
    expect(r.error?.code).toBe('cancelled');
    expect(c.types().at(-1)).toBe('run.failed');
    // The WebSocket client cancels through a RunCancel (no AbortController per run).
    const cancel = new RunCancel();
    const q = engine.run({ graph: fanoutGraph(), inputs: big, signal: cancel });
    cancel.abort('cancelled by the client');
    expect((await q).error?.code).toBe('cancelled');
  });

  it('refuses runs over maxConcurrentRuns', async () => {
    const limited = await Engine.create({
      repository: makeTestRepository(['extractor']),
      maxConcurrentRuns: 1,
      lazy: true,
    });
    const g = singleModelGraph('extractor', [{ name: 'x', dims: [D] }], [{ name: 'feat', dims: [F] }], 64);
    const [a, b] = await Promise.all([
      limited.run({ graph: g, inputs: { x: xs(1, 1) } }),
      limited.run({ graph: g, inputs: { x: xs(1, 1) } }),
    ]);
    expect(a.status).toBe('completed');
    expect(b.error).toMatchObject({ code: 'limit', message: expect.stringContaining('maxConcurrentRuns') });
    await limited.close();
  });

  it('a crashed instance fails its run clearly and is restarted', async () => {
    const g = singleModelGraph('extractor', [{ name: 'x', dims: [D] }], [{ name: 'feat', dims: [F] }], 64);
    await engine.crashInstance('extractor', 0);
    const r = await engine.run({ graph: g, inputs: { x: xs(1, 3) } });
    expect(r.error).toMatchObject({
      code: 'instance-crashed',
      nodeId: 'm',
      message: expect.stringContaining('extractor_0'),
    });
    await expect
      .poll(async () => (await engine.run({ graph: g, inputs: { x: xs(1, 3) } })).status, { timeout: 20000 })
      .toBe('completed');
  });

  it('ocr on a blank image exits early after det: downstream skipped, no outputs', async () => {
    const c = collect();
    const image: Tensor = { datatype: 'UINT8', shape: [320, 480, 3], data: new Uint8Array(320 * 480 * 3).fill(255) };
    const r = await engine.run({ graph: ocrGraph('gate'), inputs: { image }, onEvent: c.onEvent });
    expect(r.error).toBeUndefined();
    expect(r.status).toBe('exited_early');
    expect(r.outputs).toEqual({});
    expect(r.exit).toMatchObject({ conditionId: 'has_text', value: true, strategy: 'gate' });
    const skipped = c.events.filter((e) => e.type === 'node.skipped').map((e) => e.type === 'node.skipped' && e.nodeId);
    expect(skipped).toEqual(expect.arrayContaining(['crop', 'rec', 'cls', 'ctc', 'texts']));
    expect(c.events.find((e) => e.type === 'node.finished' && e.nodeId === 'db')).toBeDefined();
    expect(c.types().at(-1)).toBe('run.exited_early');
  });

  it('streams a VAD sequence: binds it, shows it, rejects a missing START', async () => {
    const c = collect();
    const chunk = (): Tensor => ({ datatype: 'FP32', shape: [576], data: new Float32Array(576) });
    const first = await engine.run({
      graph: vadGraph(),
      inputs: { audio: chunk() },
      sequence: { id: 42, start: true, end: false },
      onEvent: c.onEvent,
    });
    expect(first.status).toBe('completed');
    expect(first.outputs.speech_prob!.shape).toEqual([1, 1]);
    expect(c.events.find((e) => e.type === 'sequence.bound')).toMatchObject({
      sequenceId: 42,
      model: 'vad',
      nodeId: 'vad',
    });
    expect(engine.sequences()).toEqual([expect.objectContaining({ model: 'vad', sequenceId: 42 })]);
    await engine.run({ graph: vadGraph(), inputs: { audio: chunk() }, sequence: { id: 42, start: false, end: true } });
    expect(engine.sequences()).toEqual([]);
    const orphan = await engine.run({
      graph: vadGraph(),
      inputs: { audio: chunk() },
      sequence: { id: 43, start: false, end: false },
    });
    expect(orphan.error).toMatchObject({ code: 'sequence-unknown' });
    const noSeq = await engine.run({ graph: vadGraph(), inputs: { audio: chunk() } });
    expect(noSeq.error?.message).toContain('stateful');
  });
});
