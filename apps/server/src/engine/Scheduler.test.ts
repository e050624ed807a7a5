import { describe, expect, it } from 'vitest';
import type { ConditionNode, GraphDoc, GraphEdge, GraphNode, ServerMessage, Tensor } from '@ensemble-studio/core';
import { Scheduler } from './Scheduler.ts';
import type { NodeExecutor, NodeRun } from './schedulerTypes.ts';
import { EngineError } from './errors.ts';

const pos = { x: 0, y: 0 };
const t = (v: number): Tensor => ({ datatype: 'FP32', shape: [1], data: new Float32Array([v]) });
const input = (id: string): GraphNode => ({
  id,
  kind: 'input',
  position: pos,
  params: { name: id, datatype: 'FP32', dims: [1] },
});
const output = (id: string): GraphNode => ({
  id,
  kind: 'output',
  position: pos,
  params: { name: id, datatype: 'FP32', dims: [-1] },
});
const model = (id: string): GraphNode => ({ id, kind: 'model', position: pos, params: { model: id } });
const cond = (id: string, strategy: ConditionNode['params']['strategy'], defaults = {}): GraphNode => ({
  id,
  kind: 'condition',
  position: pos,
  params: { expression: 'x > 0', strategy, ports: ['x'], message: 'stopped by test', defaults },
});
let eid = 0;
const edge = (s: string, sp: string, d: string, dp: string): GraphEdge => ({
  id: `e${eid++}`,
  source: s,
  sourcePort: sp,
  target: d,
  targetPort: dp,
});
const graphOf = (nodes: GraphNode[], edges: GraphEdge[]): GraphDoc => ({
  version: 1,
  name: 'g',
  maxBatchSize: 0,
  nodes,
  edges,
});

/** A fake executor: each model node adds 1 to `x`, recording start/end; `hold` keeps nodes running until released. */
function fakeExecutor(opts: { fail?: string; responses?: Record<string, number>; hold?: boolean } = {}) {
  const events: string[] = [];
  const releases: (() => void)[] = [];
  const executor: NodeExecutor = {
    async execute(node, inputs, ctx): Promise<NodeRun> {
      events.push(`start ${node.id}`);
      if (opts.hold) await new Promise<void>((r) => releases.push(r));
      if (ctx.signal.aborted) throw new EngineError('cancelled', 'cancelled');
      await new Promise((r) => setImmediate(r));
      events.push(`end ${node.id}`);
      if (node.id === opts.fail) throw new Error('boom');
      const x = ((inputs.x ?? Object.values(inputs)[0])!.data as Float32Array)[0]!;
      if (node.kind === 'condition')
        return x > 0
          ? { responses: node.params.strategy === 'gate' ? [] : [], exit: { value: x > 0 } }
          : { responses: [inputs] };
      const n = opts.responses?.[node.id] ?? 1;
      return { responses: Array.from({ length: n }, (_, k) => ({ x: t(x + 1 + k * 10) })) };
    },
  };
  return { executor, events, releaseAll: () => releases.splice(0).forEach((r) => r()) };
}

function run(
  graph: GraphDoc,
  inputs: Record<string, Tensor>,
  executor: NodeExecutor,
  signal = new AbortController().signal,
) {
  const messages: ServerMessage[] = [];
  const result = new Scheduler({ runId: 'r', graph, inputs, executor, signal, emit: (m) => messages.push(m) }).run();
  return { result, messages };
}

const skipped = (ms: ServerMessage[]) =>
  ms.flatMap((m) => (m.type === 'node.skipped' ? [[m.nodeId, m.reason.type]] : []));
const val = (x: Tensor | undefined) => (x!.data as Float32Array)[0];

describe('Scheduler', () => {
  // in → a → (router) → b, c → outputs
  const diamond = graphOf(
    [
      input('in'),
      model('a'),
      { id: 'r', kind: 'router', position: pos, params: { mode: 'copy', count: 2 } },
      model('b'),
      model('c'),
      output('ob'),
      output('oc'),
    ],
    [
      edge('in', 'out', 'a', 'x'),
      edge('a', 'x', 'r', 'in'),
      edge('r', 'out_0', 'b', 'x'),
      edge('r', 'out_1', 'c', 'x'),
      edge('b', 'x', 'ob', 'in'),
      edge('c', 'x', 'oc', 'in'),
    ],
  );

  it('builds no node events for a run nobody watches, tells executors so, and still counts partials', async () => {
    const seen: boolean[] = [];
    const f = fakeExecutor({ responses: { a: 3 } });
    const executor: NodeExecutor = {
      execute: (node, inputs, ctx) => {
        seen.push(ctx.observed);
        return f.executor.execute(node, inputs, ctx);
      },
    };
    const messages: ServerMessage[] = [];
    const r = await new Scheduler({
      runId: 'r',
      graph: diamond,
      inputs: { in: t(1) },
      executor,
      signal: new AbortController().signal,
      emit: (m) => messages.push(m),
      observed: false,
    }).run();
    expect(r.status).toBe('completed');
    expect(messages).toEqual([]);
    expect(r.partials).toBe(3);
    expect(seen.length).toBeGreaterThan(0);
    expect(seen.every((o) => o === false)).toBe(true);
  });

  it('runs a node after its inputs exist and independent branches concurrently', async () => {
    const f = fakeExecutor();
    const { result } = run(diamond, { in: t(1) }, f.executor);
    const r = await result;
    expect(r.status).toBe('completed');
    expect(val(r.outputs.ob)).toBe(3);
    expect(val(r.outputs.oc)).toBe(3);
    expect(f.events.indexOf('end a')).toBeLessThan(f.events.indexOf('start b'));
    // b and c overlap: both started before either ended.
    expect(f.events.slice(2, 4).sort()).toEqual(['start b', 'start c']);
    expect(r.timings.map((x) => x.nodeId).sort()).toEqual(['a', 'b', 'c', 'r']);
  });

  it('passes the same tensor to every router consumer', async () => {
    const seen: Tensor[] = [];
    const executor: NodeExecutor = {
      async execute(node, inputs) {
        if (node.id !== 'a') seen.push(inputs.x!);
        return { responses: [{ x: inputs.x! }] };
      },
    };
    await run(diamond, { in: t(1) }, executor).result;
    expect(seen[0]).toBe(seen[1]);
  });

  it('stops scheduling after a failure and skips the rest with the reason', async () => {
    const f = fakeExecutor({ fail: 'a' });
    const { result, messages } = run(diamond, { in: t(1) }, f.executor);
    const r = await result;
    expect(r.status).toBe('failed');
    expect(r.error).toMatchObject({ code: 'node-failed', nodeId: 'a', message: "in ensemble 'g', node 'a': boom" });
    expect(skipped(messages)).toEqual([
      ['r', 'upstream-failed'],
      ['b', 'upstream-failed'],
      ['c', 'upstream-failed'],
      ['ob', 'upstream-failed'],
      ['oc', 'upstream-failed'],
    ]);
  });

  const gated = (strategy: ConditionNode['params']['strategy'], defaults = {}) =>
    graphOf(
      [input('in'), model('a'), cond('c', strategy, defaults), model('b'), output('out')],
      [edge('in', 'out', 'a', 'x'), edge('a', 'x', 'c', 'x'), edge('c', 'x', 'b', 'x'), edge('b', 'x', 'out', 'in')],
    );

  it('gate: skips downstream, ends exited_early with no outputs', async () => {
    const { result, messages } = run(gated('gate'), { in: t(1) }, fakeExecutor().executor);
    const r = await result;
    expect(r.status).toBe('exited_early');
    expect(r.outputs).toEqual({});
    expect(r.exit).toMatchObject({ conditionId: 'c', value: true, strategy: 'gate' });
    expect(skipped(messages)).toEqual([
      ['b', 'exit'],
      ['out', 'exit'],
    ]);
    expect(messages.some((m) => m.type === 'node.finished' && m.nodeId === 'a')).toBe(true);
  });

  it('gate that does not hold lets the tensors through', async () => {
    const r = await run(gated('gate'), { in: t(-5) }, fakeExecutor().executor).result;
    expect(r.status).toBe('completed');
    expect(val(r.outputs.out)).toBe(-3);
  });

  it('bls: returns the declared defaults', async () => {
    const r = await run(gated('bls', { out: { shape: [2], data: [7, 8] } }), { in: t(1) }, fakeExecutor().executor)
      .result;
    expect(r.status).toBe('exited_early');
    expect(Array.from(r.outputs.out!.data as Float32Array)).toEqual([7, 8]);
    const empty = await run(gated('bls'), { in: t(1) }, fakeExecutor().executor).result;
    expect(empty.outputs.out!.shape).toEqual([0]);
  });

  it('error: fails with the user message, reported as an early exit', async () => {
    const r = await run(gated('error'), { in: t(1) }, fakeExecutor().executor).result;
    expect(r.status).toBe('failed');
    expect(r.error).toMatchObject({ code: 'early-exit', message: "in ensemble 'g', stopped by test" });
    expect(r.exit).toMatchObject({ conditionId: 'c', strategy: 'error', message: 'stopped by test' });
  });

  it('decoupled: each response flows downstream as its own iteration and is a partial', async () => {
    const g = graphOf(
      [input('in'), model('a'), model('b'), output('out')],
      [edge('in', 'out', 'a', 'x'), edge('a', 'x', 'b', 'x'), edge('b', 'x', 'out', 'in')],
    );
    const f = fakeExecutor({ responses: { a: 3 } });
    const { result, messages } = run(g, { in: t(0) }, f.executor);
    const r = await result;
    expect(r.status).toBe('completed');
    expect(f.events.filter((e) => e === 'end b')).toHaveLength(3);
    expect(messages.filter((m) => m.type === 'run.partial').map((m) => m.type === 'run.partial' && m.index)).toEqual([
      0, 1, 2,
    ]);
    expect([2, 12, 22]).toContain(val(r.outputs.out));
  });

  it('cancellation stops scheduling and skips the rest as cancelled', async () => {
    const f = fakeExecutor({ hold: true });
    const ac = new AbortController();
    const { result, messages } = run(diamond, { in: t(1) }, f.executor, ac.signal);
    await new Promise((r) => setImmediate(r));
    ac.abort();
    f.releaseAll();
    const r = await result;
    expect(r.status).toBe('failed');
    expect(r.error?.code).toBe('cancelled');
    expect(skipped(messages).map(([, why]) => why)).toEqual([
      'cancelled',
      'cancelled',
      'cancelled',
      'cancelled',
      'cancelled',
    ]);
  });

  it('rejects cycles and unknown nodes', () => {
    const cyc = graphOf([model('a'), model('b')], [edge('a', 'x', 'b', 'x'), edge('b', 'x', 'a', 'x')]);
    expect(
      () =>
        new Scheduler({
          runId: 'r',
          graph: cyc,
          inputs: {},
          executor: fakeExecutor().executor,
          signal: new AbortController().signal,
          emit: () => {},
        }),
    ).toThrow(/cycle/);
    const dangling = graphOf([model('a')], [edge('a', 'x', 'zz', 'x')]);
    expect(
      () =>
        new Scheduler({
          runId: 'r',
          graph: dangling,
          inputs: {},
          executor: fakeExecutor().executor,
          signal: new AbortController().signal,
          emit: () => {},
        }),
    ).toThrow(/does not exist/);
  });
  it('indexes a 20 000-node chain without exhausting the call stack, and still finds a cycle at its end', () => {
    const n = 20_000;
    const nodes = Array.from({ length: n }, (_, i) => model(`m${i}`));
    const edges = Array.from({ length: n - 1 }, (_, i) => edge(`m${i}`, 'x', `m${i + 1}`, 'x'));
    expect(
      () =>
        new Scheduler({
          runId: 'r',
          graph: graphOf(nodes, edges),
          inputs: {},
          executor: fakeExecutor().executor,
          signal: new AbortController().signal,
          emit: () => {},
        }),
    ).not.toThrow();
    const looped = graphOf(nodes, [...edges, edge(`m${n - 1}`, 'y', 'm0', 'y')]);
    expect(
      () =>
        new Scheduler({
          runId: 'r',
          graph: looped,
          inputs: {},
          executor: fakeExecutor().executor,
          signal: new AbortController().signal,
          emit: () => {},
        }),
    ).toThrow(/cycle: m0 → m1 → .* → m0/);
  });

  it('runs without an omitted optional input, and the next run of the same graph waits for it again', async () => {
    const g = graphOf(
      [input('a'), input('b'), model('m'), output('o')],
      [edge('a', 'out', 'm', 'x'), edge('b', 'out', 'm', 'y'), edge('m', 'x', 'o', 'in')],
    );
    const seen: string[][] = [];
    const executor: NodeExecutor = {
      execute: async (_node, inputs) => {
        seen.push(Object.keys(inputs).sort());
        return { responses: [{ x: t(1) }] };
      },
    };
    expect((await run(g, { a: t(1) }, executor).result).status).toBe('completed');
    expect((await run(g, { a: t(1), b: t(2) }, executor).result).status).toBe('completed');
    expect(seen).toEqual([['x'], ['x', 'y']]);
  });
});
