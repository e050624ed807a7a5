// A response that leaves out an output of its node, and an optional graph input left out: the placeholder's path.
import { describe, expect, it } from 'vitest';
import type { GraphDoc, GraphNode, Tensor } from '@ensemble-studio/core';
import { edgeOf as edge, graphOf, ioNode, modelNode as model } from '../testing/graphBuilders.ts';
import { Scheduler } from './Scheduler.ts';
import type { NodeExecutor, NodeRun } from './schedulerTypes.ts';
import type { StepInputs } from './omittedInputs.ts';

const pos = { x: 0, y: 0 };
const t = (v: number): Tensor => ({ datatype: 'FP32', shape: [1], data: Float32Array.of(v) });
const io = (kind: 'input' | 'output', id: string, optional = false) => ioNode(kind, id, { optional });
const router = (id: string): GraphNode => ({ id, kind: 'router', position: pos, params: { count: 1, mode: 'direct' } });

/**
 * Model `a` answers each run with `aSends` (a decoupled `a` streams them, each through `respond`, and returns none);
 * every other model answers `{ Y: 7 }`. `specs` are the models' inputs (the executor's `stepInputs`).
 */
function executor(o: { aSends: Record<string, Tensor>[]; decoupled?: boolean; specs?: Record<string, StepInputs> }) {
  const ran: Record<string, string[]> = {};
  let release: () => void = () => {};
  const held = new Promise<void>((r) => (release = r));
  const ex: NodeExecutor = {
    async execute(node, inputs, ctx): Promise<NodeRun> {
      ran[node.id] = Object.keys(inputs).sort();
      if (node.id !== 'a') return { responses: [{ Y: t(7) }] };
      if (!o.decoupled) return { responses: o.aSends };
      for (const r of o.aSends) ctx.respond(node, r, false);
      await held;
      return { responses: [] };
    },
    stepInputs: (node) => o.specs?.[node.id],
  };
  return { ex, ran, release };
}

function run(
  g: GraphDoc,
  inputs: Record<string, Tensor>,
  ex: NodeExecutor,
  onResponse?: (o: Record<string, Tensor>) => void,
) {
  const signal = new AbortController().signal;
  return new Scheduler({ runId: 'r', graph: g, inputs, executor: ex, signal, emit: () => {}, onResponse }).run();
}

// X → a; a.Y → output Y; a.S → output S.
const direct = graphOf(
  [io('input', 'X'), model('a'), io('output', 'Y'), io('output', 'S')],
  [edge('X', 'out', 'a', 'X'), edge('a', 'Y', 'Y', 'in'), edge('a', 'S', 'S', 'in')],
);
// X → a; a.Y → b.P, a.S → b.Q; b.Y → output Z.
const through = graphOf(
  [io('input', 'X'), model('a'), model('b'), io('output', 'Z')],
  [edge('X', 'out', 'a', 'X'), edge('a', 'Y', 'b', 'P'), edge('a', 'S', 'b', 'Q'), edge('b', 'Y', 'Z', 'in')],
);
const bSpecs = (optionalQ: boolean): Record<string, StepInputs> => ({
  b: {
    model: 'bm',
    inputs: [
      { port: 'P', name: 'P' },
      { port: 'Q', name: 'Q', optional: optionalQ },
    ],
  },
});

describe('an output left out of a response', () => {
  it("sends a decoupled node's response that lacks a graph output at once, without it", async () => {
    const sent: string[][] = [];
    const { ex, release } = executor({ aSends: [{ Y: t(1) }, { Y: t(2), S: t(3) }], decoupled: true });
    const done = run(direct, { X: t(0) }, ex, (o) => sent.push(Object.keys(o).sort()));
    await new Promise((r) => setImmediate(r));
    // Both while `a` still runs: the first was held to the run's end before.
    expect(sent).toEqual([['Y'], ['S', 'Y']]);
    release();
    expect((await done).status).toBe('completed');
    expect(sent).toHaveLength(2);
  });

  it("fails the step it starves of a required input with the model's input count message", async () => {
    const { ex, ran } = executor({ aSends: [{ Y: t(1) }], specs: bSpecs(false) });
    const r = await run(through, { X: t(0) }, ex);
    expect(r.status).toBe('failed');
    expect(r.error).toEqual({
      code: 'invalid-input',
      nodeId: 'b',
      message:
        "in ensemble 'g', [request id: <id_unknown>] expected 2 inputs but got 1 inputs for model 'bm'. Got input(s) ['P'], but missing required input(s) ['Q']. Please provide all required input(s).",
    });
    expect(ran.b).toBeUndefined();
  });

  it("names the request's id in the step's refusal, as Triton's step request carries the ensemble request's id", async () => {
    const { ex } = executor({ aSends: [{ Y: t(1) }], specs: bSpecs(false) });
    const signal = new AbortController().signal;
    const r = await new Scheduler({
      runId: 'r',
      requestId: 'req-7',
      graph: through,
      inputs: { X: t(0) },
      executor: ex,
      signal,
      emit: () => {},
    }).run();
    expect(r.error?.message).toMatch(/^in ensemble 'g', \[request id: req-7\] expected 2 inputs but got 1 inputs/);
  });

  it('runs the step without it when the input is optional', async () => {
    const { ex, ran } = executor({ aSends: [{ Y: t(1) }], specs: bSpecs(true) });
    const r = await run(through, { X: t(0) }, ex);
    expect([r.status, Object.keys(r.outputs)]).toEqual(['completed', ['Z']]);
    expect(ran.b).toEqual(['P']);
  });

  it('runs a step whose every input was left out with none, and refuses it when one is required', async () => {
    const optional = executor({ aSends: [{}], specs: bSpecs(true) });
    const g = graphOf(
      [io('input', 'X'), model('a'), model('b'), io('output', 'Z')],
      [edge('X', 'out', 'a', 'X'), edge('a', 'S', 'b', 'Q'), edge('b', 'Y', 'Z', 'in')],
    );
    const onlyQ = { b: { model: 'bm', inputs: [{ port: 'Q', name: 'Q', optional: true }] } };
    const ok = await run(g, { X: t(0) }, executor({ aSends: [{}], specs: onlyQ }).ex);
    expect(ok.status).toBe('completed');
    const refused = await run(g, { X: t(0) }, optional.ex);
    expect(refused.error?.message).toBe(
      "in ensemble 'g', [request id: <id_unknown>] expected number of inputs between 1 and 2 but got 0 inputs for model 'bm'. Got input(s) [], but missing required input(s) ['P']. Please provide all required input(s).",
    );
  });

  it('passes the placeholder through a direct router', async () => {
    const g = graphOf(
      [io('input', 'X'), model('a'), router('r'), model('b'), io('output', 'Z')],
      [edge('X', 'out', 'a', 'X'), edge('a', 'S', 'r', 'in'), edge('r', 'out_0', 'b', 'Q'), edge('b', 'Y', 'Z', 'in')],
    );
    const { ex, ran } = executor({ aSends: [{ Y: t(1) }] });
    expect((await run(g, { X: t(0) }, ex)).status).toBe('completed');
    expect(ran.b).toEqual([]);
  });
});

describe('an optional graph input left out', () => {
  // X (optional) → a.X; W → a.W; a.Y → output Z.
  const g = graphOf(
    [io('input', 'X', true), io('input', 'W'), model('a'), io('output', 'Z')],
    [edge('X', 'out', 'a', 'X'), edge('W', 'out', 'a', 'W'), edge('a', 'Y', 'Z', 'in')],
  );
  const aSpecs = (optional: boolean) => ({
    a: {
      model: 'am',
      inputs: [
        { port: 'X', name: 'X', optional },
        { port: 'W', name: 'W' },
      ],
    },
  });

  it('is refused by a model that requires the input it feeds, as Triton refuses the step', async () => {
    const r = await run(g, { W: t(1) }, executor({ aSends: [{ Y: t(1) }], specs: aSpecs(false) }).ex);
    expect(r.error?.message).toBe(
      "in ensemble 'g', [request id: <id_unknown>] expected 2 inputs but got 1 inputs for model 'am'. Got input(s) ['W'], but missing required input(s) ['X']. Please provide all required input(s).",
    );
  });

  it('runs a model whose input it feeds is optional', async () => {
    const { ex, ran } = executor({ aSends: [{ Y: t(1) }], specs: aSpecs(true) });
    expect((await run(g, { W: t(1) }, ex)).status).toBe('completed');
    expect(ran.a).toEqual(['W']);
  });
});
