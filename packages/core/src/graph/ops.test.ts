import { describe, expect, it } from 'vitest';
import { validateGraph } from '../validate/validateGraph.ts';
import { addSubGraph, fixtureCatalogue, graphFixture } from '../testing/fixtures.ts';
import * as ops from './ops.ts';
import type { GraphDoc } from './types.ts';

const catalogue = fixtureCatalogue();

function deepFreeze<T>(v: T): T {
  if (v && typeof v === 'object') {
    Object.freeze(v);
    for (const x of Object.values(v)) deepFreeze(x);
  }
  return v;
}
const frozen = (): GraphDoc => deepFreeze(addSubGraph());

describe('graph ops', () => {
  it('adds and removes nodes with their edges, never mutating the input', () => {
    const g = frozen();
    const added = ops.addNode(g, ops.createNode('router', 'r', { x: 1, y: 2 }, catalogue));
    expect(added.nodes.at(-1)).toEqual({
      id: 'r',
      kind: 'router',
      position: { x: 1, y: 2 },
      params: { mode: 'copy', count: 2 },
    });
    const removed = ops.removeNodes(g, ['simple']);
    expect(removed.nodes.map((n) => n.id)).toEqual(['INPUT0', 'INPUT1', 'OUTPUT0', 'OUTPUT1']);
    expect(removed.edges).toEqual([]);
    expect(g.nodes).toHaveLength(5);
    expect(ops.removeNodes(g, ['ghost'])).toBe(g);
  });

  it('keeps untouched nodes by reference (structural sharing)', () => {
    const g = frozen();
    const moved = ops.moveNodes(g, { simple: { x: 300, y: 10 } });
    expect(moved.nodes.find((n) => n.id === 'simple')?.position).toEqual({ x: 300, y: 10 });
    expect(moved.nodes[0]).toBe(g.nodes[0]);
    expect(moved.edges).toBe(g.edges);
  });

  it('connect replaces the producer of an input (one producer per input)', () => {
    const g = ops.connect(frozen(), {
      id: 'new',
      source: 'INPUT0',
      sourcePort: 'out',
      target: 'simple',
      targetPort: 'INPUT1',
    });
    expect(g.edges.filter((e) => e.target === 'simple' && e.targetPort === 'INPUT1')).toEqual([
      { id: 'new', source: 'INPUT0', sourcePort: 'out', target: 'simple', targetPort: 'INPUT1' },
    ]);
    expect(g.edges).toHaveLength(4);
    expect(ops.disconnect(g, ['new']).edges).toHaveLength(3);
  });

  it('merges params, and drops edges of router outputs that no longer exist', () => {
    const g = graphFixture()
      .input('A', 'FP32', [-1])
      .router('r', 3)
      .model('m', 'identity')
      .feed('A', 'r', 'in')
      .wire('r', 'out_0', 'm', 'INPUT0')
      .wire('r', 'out_2', 'm', 'INPUT0', 'last')
      .doc();
    const next = ops.setParams(deepFreeze(g), 'r', { count: 2 });
    expect(next.nodes[1]?.params).toEqual({ mode: 'copy', count: 2 });
    expect(next.edges.map((e) => e.id)).toEqual(['e1', 'e2']);
  });

  it('drops edges of condition ports that were removed', () => {
    const g = graphFixture()
      .model('m', 'identity')
      .condition('c', { ports: ['a', 'b'] })
      .wire('m', 'OUTPUT0', 'c', 'a')
      .wire('m', 'OUTPUT0', 'c', 'b')
      .wire('c', 'b', 'm', 'INPUT0')
      .doc();
    expect(ops.setParams(g, 'c', { ports: ['a'] }).edges.map((e) => e.id)).toEqual(['e1']);
  });

  it('sets and clears labels, renames the graph, sets its max_batch_size', () => {
    const labelled = ops.setLabel(frozen(), 'simple', 'Add/Sub');
    expect(labelled.nodes[2]?.label).toBe('Add/Sub');
    expect('label' in ops.setLabel(labelled, 'simple', undefined).nodes[2]!).toBe(false);
    expect(ops.renameGraph(frozen(), 'x').name).toBe('x');
    expect(ops.setMaxBatchSize(frozen(), 0).maxBatchSize).toBe(0);
  });

  it('duplicates nodes with new ids, inner edges, an offset and fresh tensor names', () => {
    const g = ops.duplicateNodes(frozen(), ['INPUT0', 'simple'], (id) => `${id}#2`, { x: 40, y: 40 });
    const copy = g.nodes.find((n) => n.id === 'INPUT0#2');
    expect(copy).toMatchObject({ kind: 'input', params: { name: 'INPUT0_1' } });
    expect(copy?.position).toEqual({ x: 40, y: 40 });
    expect(g.edges.at(-1)).toEqual({
      id: 'e1#2',
      source: 'INPUT0#2',
      sourcePort: 'out',
      target: 'simple#2',
      targetPort: 'INPUT0',
    });
    expect(g.edges).toHaveLength(5);
  });

  it('creates nodes with the defaults of their kind', () => {
    expect(ops.createNode('op', 'k', { x: 0, y: 0 }, catalogue, { op: 'topk' }).params).toEqual({
      op: 'topk',
      values: { k: 1 },
    });
    expect(ops.createNode('condition', 'c', { x: 0, y: 0 }, catalogue).params).toEqual({
      expression: 'len(boxes) == 0',
      strategy: 'gate',
      message: 'pipeline ended early',
      ports: ['boxes'],
      defaults: {},
    });
    expect(ops.createNode('model', 'm', { x: 0, y: 0 }, catalogue, { model: 'det' }).params).toEqual({ model: 'det' });
    expect(
      ops.createNode('input', 'img', { x: 0, y: 0 }, catalogue, { datatype: 'UINT8', dims: [-1, -1, 3] }).params,
    ).toEqual({ name: 'img', datatype: 'UINT8', dims: [-1, -1, 3] });
  });

  it('builds a valid single-model graph for plain-model inference', () => {
    const g = ops.singleModelGraph(catalogue.models.simple!);
    expect(g).toMatchObject({ name: 'simple', maxBatchSize: 8 });
    expect(g.nodes.map((n) => n.id)).toEqual(['in:INPUT0', 'in:INPUT1', 'model', 'out:OUTPUT0', 'out:OUTPUT1']);
    expect(validateGraph(g, catalogue)).toEqual([]);
    // Laid out left to right: inputs, then the model, then its outputs.
    const x = (id: string) => g.nodes.find((n) => n.id === id)!.position.x;
    expect(Math.max(x('in:INPUT0'), x('in:INPUT1'))).toBeLessThan(x('model'));
    expect(x('model')).toBeLessThan(Math.min(x('out:OUTPUT0'), x('out:OUTPUT1')));
    const opt = ops.singleModelGraph(catalogue.models.optional_in!);
    expect(opt.nodes[1]?.params).toMatchObject({ name: 'INPUT1', optional: true });
  });

  it('starts a new graph at the current version', () => {
    expect(ops.newGraph('g')).toEqual({ version: 1, name: 'g', maxBatchSize: 0, nodes: [], edges: [] });
  });
});

describe('graph ops (properties)', () => {
  it('never mutate their input and keep one producer per input port', async () => {
    const fc = await import('fast-check');
    const ids = ['INPUT0', 'INPUT1', 'simple', 'OUTPUT0', 'OUTPUT1', 'r'];
    const step = fc.oneof(
      fc.record({
        t: fc.constant('connect' as const),
        s: fc.constantFrom(...ids),
        tg: fc.constantFrom(...ids),
        p: fc.constantFrom('INPUT0', 'INPUT1', 'in'),
        n: fc.nat(5),
      }),
      fc.record({ t: fc.constant('remove' as const), s: fc.constantFrom(...ids) }),
      fc.record({ t: fc.constant('dup' as const), s: fc.constantFrom(...ids), n: fc.nat(5) }),
      fc.record({ t: fc.constant('count' as const), n: fc.integer({ min: 0, max: 4 }) }),
    );
    fc.assert(
      fc.property(fc.array(step, { maxLength: 12 }), (steps) => {
        let g = deepFreeze(ops.addNode(addSubGraph(), ops.createNode('router', 'r', { x: 0, y: 0 }, catalogue)));
        steps.forEach((s, i) => {
          const before = JSON.stringify(g);
          let next: GraphDoc;
          if (s.t === 'connect')
            next = ops.connect(g, { id: `c${i}`, source: s.s, sourcePort: 'out', target: s.tg, targetPort: s.p });
          else if (s.t === 'remove') next = ops.removeNodes(g, [s.s]);
          else if (s.t === 'dup') next = ops.duplicateNodes(g, [s.s], (id) => `${id}~${i}`, { x: 1, y: 1 });
          else next = ops.setParams(g, 'r', { count: s.n });
          expect(JSON.stringify(g)).toBe(before);
          const inputs = next.edges.map((e) => `${e.target}:${e.targetPort}`);
          expect(new Set(inputs).size).toBe(inputs.length);
          g = deepFreeze(next);
        });
      }),
      { numRuns: 200 },
    );
  });
});
