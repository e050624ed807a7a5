import { describe, expect, it } from 'vitest';
import { addSubGraph, graphFixture } from '../testing/fixtures.ts';
import { GRAPH_VERSION } from '../graph/types.ts';
import { migrate, MIGRATIONS } from './migrate.ts';

const clone = <T>(v: T): T => JSON.parse(JSON.stringify(v)) as T;

/** A rich current document: every node kind and optional field. */
const rich = () => {
  const g = graphFixture('ocr', 4)
    .input('img', 'UINT8', [-1, -1, 3], { optional: true })
    .op('pre', 'image_preprocess', { max_side: 640 })
    .model('det', 'det', {
      max_batch_size: 0,
      instance_group: [{ count: 2, kind: 'KIND_CPU' }],
      dynamic_batching: null,
      sequence_batching: { state: [{ input_name: 's', output_name: 'sN', data_type: 'TYPE_FP32', dims: [2, -1] }] },
    })
    .router('r', 2, 'direct')
    .condition('c', { ports: ['boxes'], strategy: 'bls', defaults: { texts: { shape: [0], data: [] } } })
    .output('texts', 'BYTES', [-1])
    .feed('img', 'pre', 'image')
    .doc();
  return { ...g, description: 'OCR', nodes: g.nodes.map((n, i) => (i === 2 ? { ...n, label: 'Detector' } : n)) };
};

describe('migrate', () => {
  it('accepts a current document unchanged', () => {
    const doc = rich();
    expect(migrate(clone(doc))).toEqual({ ok: true, graph: doc, from: GRAPH_VERSION });
    expect(migrate(clone(addSubGraph()))).toEqual({ ok: true, graph: addSubGraph(), from: 1 });
  });

  it('migrates version 0 (sourceHandle/targetHandle edges) to 1, and the result round-trips', () => {
    const current = addSubGraph();
    const v0 = {
      version: 0,
      name: current.name,
      nodes: clone(current.nodes),
      edges: current.edges.map(({ sourcePort, targetPort, ...e }) => ({
        ...e,
        sourceHandle: sourcePort,
        targetHandle: targetPort,
      })),
    };
    const r = migrate({ ...v0, maxBatchSize: 8 });
    expect(r).toEqual({ ok: true, graph: current, from: 0 });
    if (!r.ok) return;
    expect(migrate(clone(r.graph))).toEqual({ ok: true, graph: current, from: 1 });
    // A document without a version is a pre-release one; a missing maxBatchSize becomes 0.
    const { version: _v, ...unversioned } = v0;
    expect(migrate(unversioned)).toEqual({ ok: true, graph: { ...current, maxBatchSize: 0 }, from: 0 });
  });

  it('has a migration for every version below the current one', () => {
    for (let v = 0; v < GRAPH_VERSION; v++) expect(MIGRATIONS[v]?.description).toBeTruthy();
  });

  it('rejects versions newer than this studio', () => {
    const r = migrate({ ...addSubGraph(), version: GRAPH_VERSION + 1 });
    expect(r).toEqual({ ok: false, error: expect.stringContaining(`graph version ${GRAPH_VERSION + 1} is newer`) });
  });

  const broken = (f: (d: Record<string, any>) => void) => {
    const d = clone(rich()) as Record<string, any>;
    f(d);
    return d;
  };
  it.each([
    ['not an object', () => [], 'the graph document must be a JSON object'],
    ['a bad version', () => ({ ...addSubGraph(), version: 'one' }), 'version must be a non-negative integer'],
    [
      'a non-integer router count',
      () =>
        broken((d) => {
          d.nodes[3].params.count = 1.5;
        }),
      'nodes[3].params.count must be an integer',
    ],
    [
      'an unknown kind',
      () =>
        broken((d) => {
          d.nodes[0].kind = 'blob';
        }),
      'nodes[0].kind must be one of input, output, model, router, condition, op',
    ],
    [
      'a bad dtype',
      () =>
        broken((d) => {
          d.nodes[0].params.datatype = 'FLOAT';
        }),
      'nodes[0].params.datatype must be one of',
    ],
    [
      'a zero dim',
      () =>
        broken((d) => {
          d.nodes[0].params.dims = [0];
        }),
      'nodes[0].params.dims[0] must be -1 or a positive integer',
    ],
    [
      'a missing position',
      () =>
        broken((d) => {
          delete d.nodes[1].position;
        }),
      'nodes[1].position must be an object',
    ],
    [
      'a bad instance count',
      () =>
        broken((d) => {
          d.nodes[2].params.settings.instance_group[0].count = '2';
        }),
      'nodes[2].params.settings.instance_group[0].count must be an integer',
    ],
    [
      'a bad default',
      () =>
        broken((d) => {
          d.nodes[4].params.defaults.texts.data = [null];
        }),
      'nodes[4].params.defaults.texts.data[0] must be a finite number',
    ],
    [
      'a bad op value',
      () =>
        broken((d) => {
          d.nodes[1].params.values.max_side = {};
        }),
      'nodes[1].params.values.max_side must be a finite number',
    ],
    [
      'a duplicate node id',
      () =>
        broken((d) => {
          d.nodes[1].id = d.nodes[0].id;
        }),
      "nodes[1].id 'img' is used twice",
    ],
    [
      'an edge without a target port',
      () =>
        broken((d) => {
          delete d.edges[0].targetPort;
        }),
      'edges[0].targetPort must be a string',
    ],
    [
      'a negative max batch size',
      () =>
        broken((d) => {
          d.maxBatchSize = -1;
        }),
      'maxBatchSize must be ≥ 0',
    ],
  ] as const)('rejects %s with a message naming the path', (_, make, error) => {
    const r = migrate(make());
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.error).toContain(error);
  });

  it('drops unknown fields but keeps unknown Triton settings', () => {
    const d = clone(rich()) as Record<string, any>;
    d.extra = 1;
    d.nodes[2].params.settings.instance_group[0].rate_limiter = { priority: 1 };
    const r = migrate(d);
    expect(r.ok && 'extra' in r.graph).toBe(false);
    expect(
      r.ok && r.graph.nodes[2]?.kind === 'model' && r.graph.nodes[2].params.settings?.instance_group?.[0]?.rate_limiter,
    ).toEqual({ priority: 1 });
  });
});
