// A run for some of the graph's outputs, as Triton's ensemble serves a request that names its outputs.
import { describe, expect, it } from 'vitest';
import type { GraphDoc, GraphNode, Tensor } from '@ensemble-studio/core';
import { edgeOf as edge, ioNode, modelNode as model } from '../testing/graphBuilders.ts';
import { indexGraph } from './graphIndex.ts';
import { requestedIndex } from './requestedOutputs.ts';
import { Scheduler } from './Scheduler.ts';
import type { NodeExecutor, NodeRun } from './schedulerTypes.ts';

const pos = { x: 0, y: 0 };
const t = (v: number): Tensor => ({ datatype: 'FP32', shape: [1], data: Float32Array.of(v) });
const io = (kind: 'input' | 'output', id: string) => ioNode(kind, id);

// X → a (decoupled: streams Y, S) → outputs A (a.Y) and S (a.S); X → b → output B (b.Y).
const graph: GraphDoc = {
  version: 1,
  name: 'g',
  maxBatchSize: 0,
  nodes: [io('input', 'X'), model('a'), model('b'), io('output', 'A'), io('output', 'S'), io('output', 'B')],
  edges: [
    edge('X', 'out', 'a', 'X'),
    edge('X', 'out', 'b', 'X'),
    edge('a', 'Y', 'A', 'in'),
    edge('a', 'S', 'S', 'in'),
    edge('b', 'Y', 'B', 'in'),
  ],
};

/** `a` streams two responses, then holds until `release`; `b` answers once `release` is called, or fails (`bFails`). */
function executor(bFails = false) {
  const ran: string[] = [];
  let release: () => void = () => {};
  const held = new Promise<void>((r) => (release = r));
  const ex: NodeExecutor = {
    async execute(node, _inputs, ctx): Promise<NodeRun> {
      ran.push(node.id);
      if (node.id === 'b') {
        await held;
        if (bFails) throw new Error('b broke');
        return { responses: [{ Y: t(9) }] };
      }
      ctx.respond(node, { Y: t(1), S: t(2) }, false);
      ctx.respond(node, { Y: t(3), S: t(4) }, false);
      await held;
      return { responses: [] };
    },
  };
  return { ex, ran, release };
}

function run(ex: NodeExecutor, requestedOutputs: string[] | undefined, sent: string[][] = []) {
  const signal = new AbortController().signal;
  return new Scheduler({
    runId: 'r',
    graph,
    inputs: { X: t(0) },
    executor: ex,
    signal,
    emit: () => {},
    onResponse: (o) => sent.push(Object.entries(o).map(([k, v]) => `${k}=${v.data[0]}`)),
    ...(requestedOutputs ? { requestedOutputs } : {}),
  }).run();
}

describe('a run for some of the graph outputs', () => {
  it('sends each response once its requested outputs are set, while the branch of the others would still run', async () => {
    const sent: string[][] = [];
    const { ex, ran, release } = executor();
    const done = run(ex, ['A'], sent);
    await new Promise((r) => setImmediate(r));
    // Both while `a` still runs; before, each waited for B, which `b` makes only once released.
    expect(sent).toEqual([['A=1'], ['A=3']]);
    release();
    const r = await done;
    expect([r.status, Object.keys(r.outputs)]).toEqual(['completed', ['A']]);
    // `b` feeds no requested output: pruned, as Triton's ensemble prunes its step, it never runs.
    expect(ran).toEqual(['a']);
  });

  it('holds the responses for every output when none is named', async () => {
    const sent: string[][] = [];
    const { ex, release } = executor();
    const done = run(ex, undefined, sent);
    await new Promise((r) => setImmediate(r));
    expect(sent).toEqual([]);
    release();
    await done;
    expect(sent[0]).toEqual(['A=1', 'S=2', 'B=9']);
  });

  it('does not fail on a branch that feeds only outputs not asked for', async () => {
    const asked = executor(true);
    asked.release();
    expect((await run(asked.ex, ['A', 'S'])).status).toBe('completed');
    const all = executor(true);
    all.release();
    expect((await run(all.ex, undefined)).error?.message).toBe("in ensemble 'g', node 'b': b broke");
  });

  it('keeps the nodes behind the requested outputs and drops the edges to the others', () => {
    const idx = indexGraph(graph);
    const pruned = requestedIndex(idx, graph, ['B']);
    expect([...pruned.nodes.keys()]).toEqual(['X', 'b', 'B']);
    expect([...pruned.out.get('X')!.get('out')!].map((e) => e.target)).toEqual(['b']);
    expect(requestedIndex(idx, graph, ['B'])).toBe(pruned);
    expect(requestedIndex(idx, graph, ['A', 'S', 'B'])).toBe(idx);
    expect(requestedIndex(idx, graph, [])).toBe(idx);
  });

  it('prunes nothing in a graph a bls condition makes one BLS model', () => {
    const bls: GraphDoc = {
      ...graph,
      nodes: [
        ...graph.nodes,
        { id: 'c', kind: 'condition', position: pos, params: { ports: [], expression: 'False', strategy: 'bls' } },
      ] as GraphNode[],
    };
    const idx = indexGraph(bls);
    expect(requestedIndex(idx, bls, ['A'])).toBe(idx);
  });
});
