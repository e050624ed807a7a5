import { describe, expect, it } from 'vitest';
import { addSubGraph, graphFixture } from '../testing/fixtures.ts';
import { readGraph } from './graphSchema.ts';

const json = (text: string): unknown => JSON.parse(text);
const clone = (v: unknown) => JSON.parse(JSON.stringify(v)) as Record<string, any>;

/** A document with an op node (`values`), a condition (`defaults`) and a model with settings. */
const doc = () =>
  clone(
    graphFixture('g', 0)
      .input('img', 'UINT8', [-1, 3])
      .op('pre', 'image_preprocess', { max_side: 640 })
      .model('det', 'det', { instance_group: [{ count: 1 }] })
      .condition('c', { ports: ['boxes'], strategy: 'bls', defaults: { texts: { shape: [0], data: [] } } })
      .feed('img', 'pre', 'image')
      .doc(),
  );

describe('readGraph', () => {
  it('reads a valid document to an equal one', () => {
    expect(readGraph(clone(addSubGraph()))).toEqual({ ok: true, graph: addSubGraph() });
  });

  it('keeps __proto__ and constructor keys of user-named records as plain data, never as a prototype', () => {
    const d = doc();
    const text = JSON.stringify(d)
      .replace('"max_side":640', '"max_side":640,"__proto__":3,"constructor":2')
      .replace('"texts":', '"__proto__":{"shape":[1],"data":[7]},"texts":');
    const r = readGraph(json(text));
    expect(r).toMatchObject({ ok: true });
    if (!r.ok) return;
    const op = r.graph.nodes.find((n) => n.kind === 'op')!;
    const cond = r.graph.nodes.find((n) => n.kind === 'condition')!;
    if (op.kind !== 'op' || cond.kind !== 'condition') throw new Error('fixture changed');
    // The names reach the graph's checks (which report unknown params) as keys like any other.
    expect(Object.keys(op.params.values)).toEqual(['max_side', '__proto__', 'constructor']);
    expect(Object.getPrototypeOf(op.params.values)).toBe(Object.prototype);
    expect(Object.getOwnPropertyDescriptor(op.params.values, '__proto__')?.value).toBe(3);
    expect(Object.getOwnPropertyDescriptor(cond.params.defaults, '__proto__')?.value).toEqual({
      shape: [1],
      data: [7],
    });
    expect(Object.keys(cond.params.defaults)).toEqual(['__proto__', 'texts']);
    expect(Object.getPrototypeOf(cond.params.defaults)).toBe(Object.prototype);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it('reports an object where a scalar param value belongs, even under a prototype name', () => {
    const text = JSON.stringify(doc()).replace('"max_side":640', '"__proto__":{"polluted":1}');
    expect(readGraph(json(text))).toEqual({
      ok: false,
      error: 'nodes[1].params.values.__proto__ must be a finite number',
    });
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it('drops __proto__ at the top level and in Triton settings without changing any prototype', () => {
    const d = doc();
    const text = JSON.stringify(d)
      .replace('{"version"', '{"__proto__":{"nodes":[]},"version"')
      .replace('"count":1', '"count":1,"__proto__":{"count":99},"constructor":{"x":1}');
    const r = readGraph(json(text));
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    expect(Object.getPrototypeOf(r.graph)).toBe(Object.prototype);
    expect(r.graph.nodes).toHaveLength(4);
    const model = r.graph.nodes[2]!;
    const group = model.kind === 'model' ? model.params.settings?.instance_group?.[0] : undefined;
    expect(group).toEqual({ count: 1 });
    expect(Object.getPrototypeOf(group)).toBe(Object.prototype);
    expect(Object.hasOwn(group!, '__proto__') || Object.hasOwn(group!, 'constructor')).toBe(false);
  });

  it.each([
    ['a missing node id', (d: Record<string, any>) => delete d.nodes[0].id, 'nodes[0].id must be a string'],
    [
      'an array as position',
      (d: Record<string, any>) => (d.nodes[0].position = []),
      'nodes[0].position must be an object',
    ],
    ['a node that is a number', (d: Record<string, any>) => (d.nodes[2] = 5), 'nodes[2] must be an object'],
    [
      'an unknown kind',
      (d: Record<string, any>) => (d.nodes[1].kind = 'blob'),
      'nodes[1].kind must be one of input, output, model, router, condition, op (got "blob")',
    ],
    [
      'an unknown instance kind',
      (d: Record<string, any>) => (d.nodes[2].params.settings.instance_group[0].kind = 'KIND_TPU'),
      'nodes[2].params.settings.instance_group[0].kind must be one of KIND_AUTO, KIND_GPU, KIND_CPU, KIND_MODEL (got "KIND_TPU")',
    ],
    [
      'a control input without controls',
      (d: Record<string, any>) =>
        (d.nodes[2].params.settings.sequence_batching = { control_input: [{ name: 'START' }] }),
      'nodes[2].params.settings.sequence_batching.control_input[0].control must be an array',
    ],
    ['nodes that are not an array', (d: Record<string, any>) => (d.nodes = {}), 'nodes must be an array'],
    ['an empty edge source', (d: Record<string, any>) => (d.edges[0].source = ''), 'edges[0].source must not be empty'],
  ])('names the path and what was expected: %s', (_, breakIt, error) => {
    const d = doc();
    breakIt(d);
    expect(readGraph(d)).toEqual({ ok: false, error });
  });

  it('names the document when it is not an object', () => {
    expect(readGraph([])).toEqual({ ok: false, error: 'document must be a JSON object' });
  });
});
