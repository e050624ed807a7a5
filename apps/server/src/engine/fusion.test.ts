import { describe, expect, it } from 'vitest';
import type { GraphDoc, GraphEdge, GraphNode } from '@ensemble-studio/core';
import { fusionUnits, memberSpans, planFusion, trimGroup } from './fusion.ts';
import { ocrGraph, vadGraph } from '../testing/engineGraphs.ts';

const pos = { x: 0, y: 0 };
const op = (id: string): GraphNode => ({ id, kind: 'op', position: pos, params: { op: 'topk', values: {} } });
const model = (id: string): GraphNode => ({ id, kind: 'model', position: pos, params: { model: id } });
const io = (id: string, kind: 'input' | 'output'): GraphNode => ({
  id,
  kind,
  position: pos,
  params: { name: id, datatype: 'FP32', dims: [-1] },
});
let n = 0;
const edge = (s: string, sp: string, t: string, tp: string): GraphEdge => ({
  id: `e${n++}`,
  source: s,
  sourcePort: sp,
  target: t,
  targetPort: tp,
});
const graph = (nodes: readonly GraphNode[], edges: readonly GraphEdge[]): GraphDoc => ({
  version: 1,
  name: 'g',
  maxBatchSize: 0,
  nodes,
  edges,
});
const ids = (g: Map<string, { members: GraphNode[] }>) =>
  Object.fromEntries([...g].map(([k, v]) => [k, v.members.map((m) => m.id)]));

describe('planFusion', () => {
  it('fuses the OCR graph around det, rec and cls, with each member wired to the one before', () => {
    const groups = planFusion(ocrGraph(), () => true);
    expect(ids(groups)).toEqual({
      preprocess: ['preprocess', 'det', 'db', 'has_text', 'crop'],
      rec: ['rec', 'ctc'],
      cls: ['cls', 'angle'],
    });
    const det = groups.get('preprocess')!;
    expect(det.inputs).toEqual([
      {},
      { x: { step: 0, port: 'tensor' } },
      { prob: { step: 1, port: 'sigmoid_0.tmp_0' }, shape_info: { step: 0, port: 'shape_info' } },
      // The condition reads the image the group's first member is given: a feed of the request.
      { boxes: { step: 2, port: 'boxes' }, image: { feed: 'image' } },
      { image: { step: 3, port: 'image' }, boxes: { step: 3, port: 'boxes' } },
    ]);
    // The condition's boxes also feed the graph's output: they come back with the result.
    expect(det.exports).toEqual([[], [], [], ['boxes'], []]);
    expect(groups.get('rec')!.exports).toBeUndefined();
  });

  it('takes a condition and the op behind it only when they read nothing from outside but the first feeds', () => {
    // x → p → m → q → c → r, where r also reads `side`, an input the group is not given.
    const nodes = [
      io('x', 'input'),
      io('side', 'input'),
      op('p'),
      model('m'),
      op('q'),
      {
        id: 'c',
        kind: 'condition',
        position: pos,
        params: { expression: 'len(v) == 0', strategy: 'gate', ports: ['v'] },
      },
      op('r'),
      io('y', 'output'),
    ] as GraphNode[];
    const edges = [
      edge('x', 'out', 'p', 'scores'),
      edge('p', 'indices', 'm', 'in'),
      edge('m', 'out', 'q', 'scores'),
      edge('q', 'indices', 'c', 'v'),
      edge('c', 'v', 'r', 'scores'),
      edge('r', 'indices', 'y', 'in'),
    ];
    expect(ids(planFusion(graph(nodes, edges), () => true))).toEqual({ p: ['p', 'm', 'q', 'c', 'r'] });
    const reads = graph(nodes, [...edges, edge('side', 'out', 'r', 'k')]);
    expect(ids(planFusion(reads, () => true))).toEqual({ p: ['p', 'm', 'q'] });
    // Nor a condition with nothing behind it to fuse: alone it would save no hop.
    const alone = graph(nodes, [...edges.slice(0, 4), edge('c', 'v', 'y', 'in')]);
    expect(ids(planFusion(alone, () => true))).toEqual({ p: ['p', 'm', 'q'] });
  });

  it('leaves out models that batch or keep state, and graphs where they are the only candidates', () => {
    expect(planFusion(ocrGraph(), (m) => m.params.model !== 'det').has('preprocess')).toBe(false);
    expect(planFusion(vadGraph(), () => false).size).toBe(0);
  });

  it('does not fuse an op whose output also leaves the group, nor a model whose output does', () => {
    // x → p → m → q → y, and p also feeds an output; m also feeds an output.
    const g = graph(
      [io('x', 'input'), op('p'), model('m'), op('q'), io('y', 'output'), io('side', 'output')],
      [
        edge('x', 'out', 'p', 'scores'),
        edge('p', 'indices', 'm', 'in'),
        edge('p', 'indices', 'side', 'in'),
        edge('m', 'out', 'q', 'scores'),
        edge('q', 'indices', 'y', 'in'),
      ],
    );
    expect(ids(planFusion(g, () => true))).toEqual({ m: ['m', 'q'] });
    const g2 = graph(g.nodes, [...g.edges.filter((e) => e.target !== 'side'), edge('m', 'out', 'side', 'in')]);
    expect(ids(planFusion(g2, () => true))).toEqual({ p: ['p', 'm'] });
  });

  it('does not fuse a model fed by two nodes, nor a post-op reading from outside the group', () => {
    const g = graph(
      [io('x', 'input'), op('p'), model('m'), op('q'), io('y', 'output')],
      [
        edge('x', 'out', 'p', 'scores'),
        edge('p', 'indices', 'm', 'a'),
        edge('x', 'out', 'm', 'b'),
        edge('m', 'out', 'q', 'scores'),
        edge('x', 'out', 'q', 'k'),
        edge('q', 'indices', 'y', 'in'),
      ],
    );
    expect(planFusion(g, () => true).size).toBe(0);
  });

  it('gives an op between two models to the first model only', () => {
    const g = graph(
      [io('x', 'input'), model('a'), op('mid'), model('b'), io('y', 'output')],
      [
        edge('x', 'out', 'a', 'in'),
        edge('a', 'out', 'mid', 'scores'),
        edge('mid', 'indices', 'b', 'in'),
        edge('b', 'out', 'y', 'in'),
      ],
    );
    expect(ids(planFusion(g, () => true))).toEqual({ a: ['a', 'mid'] });
  });
});

describe('memberSpans', () => {
  it('lays members back to back from the end; the first one also holds the wait', () => {
    expect(memberSpans(100, 140, [3, 30, 2])).toEqual([
      { start: 100, end: 108 },
      { start: 108, end: 138 },
      { start: 138, end: 140 },
    ]);
    // Clock skew between threads never puts a span before the group started.
    expect(memberSpans(100, 110, [5, 20])).toEqual([
      { start: 100, end: 100 },
      { start: 100, end: 110 },
    ]);
  });
});

describe('fusionUnits and trimGroup', () => {
  it('couples a pre-op and a post-op that reads it; ops that do not are units of their own', () => {
    const groups = planFusion(ocrGraph(), () => true);
    const units = (id: string) => fusionUnits(groups.get(id)!).map((u) => u.map((m) => m.id));
    expect(units('preprocess')).toEqual([
      ['preprocess', 'db'],
      ['has_text', 'crop'],
    ]);
    expect(units('rec')).toEqual([['ctc']]);
    const g = graph(
      [io('x', 'input'), op('pre'), model('m'), op('post'), io('y', 'output')],
      [edge('x', 'out', 'pre', 'in'), edge('pre', 'out', 'm', 'in'), edge('m', 'out', 'post', 'in')].concat([
        edge('post', 'out', 'y', 'in'),
      ]),
    );
    expect(fusionUnits(planFusion(g, () => true).get('pre')!).map((u) => u.map((m) => m.id))).toEqual([
      ['pre'],
      ['post'],
    ]);
  });

  it('keeps the model and the ops asked for, renumbering where each step reads from', () => {
    const g = graph(
      [io('x', 'input'), op('pre'), model('m'), op('post'), io('y', 'output')],
      [
        edge('x', 'out', 'pre', 'in'),
        edge('pre', 'out', 'm', 'in'),
        edge('m', 'out', 'post', 'in'),
        edge('post', 'out', 'y', 'in'),
      ],
    );
    const group = planFusion(g, () => true).get('pre')!;
    expect(trimGroup(group, new Set(['pre', 'post']))).toBe(group);
    const post = trimGroup(group, new Set(['post']))!;
    expect(post.members.map((m) => m.id)).toEqual(['m', 'post']);
    expect(post.inputs).toEqual([{}, { in: { step: 0, port: 'out' } }]);
    expect(trimGroup(group, new Set(['pre']))!.members.map((m) => m.id)).toEqual(['pre', 'm']);
    expect(trimGroup(group, new Set())).toBeUndefined();
  });

  it('refuses to leave out a step a kept step reads', () => {
    const group = planFusion(ocrGraph(), () => true).get('preprocess')!;
    expect(() => trimGroup(group, new Set(['db']))).toThrow(/reads step 0/);
    expect(() => trimGroup(group, new Set(['has_text', 'crop']))).toThrow(/reads step 2/);
  });

  it('drops the condition and the op behind it, with their exports, when only the pair before is kept', () => {
    const group = planFusion(ocrGraph(), () => true).get('preprocess')!;
    const kept = trimGroup(group, new Set(['preprocess', 'db']))!;
    expect(kept.members.map((m) => m.id)).toEqual(['preprocess', 'det', 'db']);
    expect(kept.exports).toEqual([[], [], []]);
    expect(trimGroup(group, new Set(['preprocess', 'db', 'has_text', 'crop']))).toBe(group);
  });
});
