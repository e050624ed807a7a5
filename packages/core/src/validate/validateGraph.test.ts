import { describe, expect, it } from 'vitest';
import { addSubGraph, fixtureCatalogue, graphFixture, type GraphFixture } from '../testing/fixtures.ts';
import { newGraph } from '../graph/ops.ts';
import type { ConditionStrategy, GraphDoc } from '../graph/types.ts';
import type { Diagnostic } from './diagnostic.ts';
import { validateGraph } from './validateGraph.ts';

const catalogue = fixtureCatalogue();
const diags = (g: GraphDoc): Diagnostic[] => validateGraph(g, catalogue);
const codes = (g: GraphDoc): string[] => diags(g).map((d) => d.code);

/** X (FP32 [-1]) → identity (mbs 4) → Y, in an ensemble with max_batch_size `mbs`. */
/** A decoupled model's output and a second output fed from the request (or, `sameSource`, from that model). */
const twoOutputs = (sameSource: boolean) => {
  const g = graphFixture('ens', 0)
    .input('A', 'FP32', [-1])
    .model('rep', 'repeat')
    .model('id', 'identity', { max_batch_size: 0 })
    .output('O', 'FP32', [-1])
    .output('P', 'FP32', [-1])
    .feed('A', 'rep', 'IN')
    .emit('rep', 'OUT', 'O')
    .emit('id', 'OUTPUT0', 'P');
  return (sameSource ? g.wire('rep', 'OUT', 'id', 'INPUT0') : g.feed('A', 'id', 'INPUT0')).doc();
};
const chain = (mbs = 4): GraphFixture =>
  graphFixture('ens', mbs)
    .input('X', 'FP32', [-1])
    .model('id', 'identity')
    .output('Y', 'FP32', [-1])
    .feed('X', 'id', 'INPUT0')
    .emit('id', 'OUTPUT0', 'Y');

/** x → det → condition 'exit' → crop (optional_in) → y; the image reaches crop through the gate or not. */
function gated(through: boolean, strategy: ConditionStrategy = 'gate'): GraphDoc {
  const g = graphFixture('ocr', 4)
    .input('x', 'FP32', [-1])
    .model('det', 'identity')
    .condition('exit', { ports: through ? ['boxes', 'img'] : ['boxes'], strategy, expression: 'len(boxes) == 0' })
    .model('crop', 'optional_in')
    .output('y', 'FP32', [-1])
    .feed('x', 'det', 'INPUT0')
    .wire('det', 'OUTPUT0', 'exit', 'boxes')
    .wire('exit', 'boxes', 'crop', 'INPUT0')
    .emit('crop', 'OUTPUT0', 'y');
  return (
    through ? g.feed('x', 'exit', 'img').wire('exit', 'img', 'crop', 'INPUT1') : g.feed('x', 'crop', 'INPUT1')
  ).doc();
}

const withCondition = (params: Parameters<GraphFixture['condition']>[1]): GraphDoc =>
  graphFixture('ens', 4)
    .input('X', 'FP32', [-1])
    .model('id', 'identity')
    .condition('c', { strategy: 'error', ...params })
    .output('Y', 'FP32', [-1])
    .feed('X', 'id', 'INPUT0')
    .wire('id', 'OUTPUT0', 'c', 'boxes')
    .emit('c', 'boxes', 'Y')
    .doc();

const routed = (count: number, connected: number): GraphDoc => {
  const g = graphFixture('ens', 4).input('X', 'FP32', [-1]).router('r', count);
  for (let i = 0; i < connected; i++)
    g.model(`id${i}`, 'identity')
      .output(`Y${i}`, 'FP32', [-1])
      .wire('r', `out_${i}`, `id${i}`, 'INPUT0')
      .emit(`id${i}`, 'OUTPUT0', `Y${i}`);
  if (connected === 0)
    g.model('id', 'identity').output('Y', 'FP32', [-1]).feed('X', 'id', 'INPUT0').emit('id', 'OUTPUT0', 'Y');
  return g.feed('X', 'r', 'in').doc();
};

interface Case {
  code: string;
  bad: () => GraphDoc;
  good: () => GraphDoc;
  expect?: Partial<Diagnostic>;
  fixIncludes?: string;
}

const CASES: Case[] = [
  { code: 'empty-graph', bad: () => newGraph('e'), good: addSubGraph },
  {
    code: 'step-without-outputs',
    bad: () => chain().model('dead', 'identity').feed('X', 'dead', 'INPUT0').doc(),
    good: () => chain().doc(),
    expect: { nodeId: 'dead', severity: 'error' },
  },
  {
    code: 'output-wired-twice',
    bad: () => chain().output('Y2', 'FP32', [-1]).emit('id', 'OUTPUT0', 'Y2').doc(),
    good: () => chain().doc(),
    expect: { nodeId: 'id', port: 'OUTPUT0' },
  },
  {
    code: 'cycle',
    bad: () =>
      chain()
        .model('id2', 'identity')
        .wire('id', 'OUTPUT0', 'id2', 'INPUT0')
        .wire('id2', 'OUTPUT0', 'id', 'INPUT0')
        .doc(),
    good: () => chain().doc(),
    expect: { severity: 'error' },
  },
  {
    code: 'dangling-edge',
    bad: () => chain().wire('id', 'OUTPUT0', 'ghost', 'x', 'bad').doc(),
    good: () => chain().doc(),
    expect: { edgeId: 'bad' },
  },
  {
    code: 'dangling-edge',
    bad: () => chain().wire('id', 'NOPE', 'Y', 'in', 'bad').doc(),
    good: () => chain().doc(),
    expect: { edgeId: 'bad' },
  },
  {
    code: 'duplicate-input-edge',
    bad: () => chain().input('X2', 'FP32', [-1]).wire('X2', 'out', 'id', 'INPUT0', 'second').doc(),
    good: () => chain().doc(),
    expect: { edgeId: 'second', nodeId: 'id', port: 'INPUT0' },
  },
  {
    code: 'tensor-two-producers',
    bad: () =>
      chain().model('id2', 'identity').feed('X', 'id2', 'INPUT0').wire('id2', 'OUTPUT0', 'Y', 'in', 'twice').doc(),
    good: () => chain().doc(),
    expect: { edgeId: 'twice', nodeId: 'Y' },
  },
  {
    code: 'unconnected-input',
    expect: { nodeId: 'simple', port: 'INPUT1' },
    bad: () =>
      graphFixture('e', 8)
        .input('A', 'INT32', [16])
        .model('simple', 'simple')
        .output('O', 'INT32', [16])
        .output('P', 'INT32', [16])
        .feed('A', 'simple', 'INPUT0')
        .emit('simple', 'OUTPUT0', 'O')
        .emit('simple', 'OUTPUT1', 'P')
        .doc(),
    good: () =>
      graphFixture('e', 4)
        .input('A', 'FP32', [-1])
        .model('o', 'optional_in')
        .output('O', 'FP32', [-1])
        .feed('A', 'o', 'INPUT0')
        .emit('o', 'OUTPUT0', 'O')
        .doc(),
  },
  {
    code: 'output-not-fed',
    bad: () => chain().output('Z', 'FP32', [-1]).doc(),
    good: () => chain().doc(),
    expect: { nodeId: 'Z' },
  },
  {
    code: 'output-not-reached',
    bad: () => chain().output('Z', 'FP32', [-1]).emit('X', 'out', 'Z').doc(),
    good: () => chain().doc(),
    expect: { nodeId: 'Z' },
  },
  {
    code: 'output-not-reached',
    bad: () => chain().model('id2', 'identity').output('Z', 'FP32', [-1]).emit('id2', 'OUTPUT0', 'Z').doc(),
    good: () => chain().doc(),
    expect: { nodeId: 'Z' },
  },
  {
    code: 'optional-input-required',
    expect: { nodeId: 'B', severity: 'warning' },
    bad: () =>
      graphFixture('e', 4)
        .input('A', 'FP32', [-1])
        .input('B', 'FP32', [-1], { optional: true })
        .model('o', 'optional_in')
        .output('O', 'FP32', [-1])
        .feed('A', 'o', 'INPUT1')
        .feed('B', 'o', 'INPUT0')
        .emit('o', 'OUTPUT0', 'O')
        .doc(),
    good: () =>
      graphFixture('e', 4)
        .input('A', 'FP32', [-1])
        .input('B', 'FP32', [-1], { optional: true })
        .model('o', 'optional_in')
        .output('O', 'FP32', [-1])
        .feed('A', 'o', 'INPUT0')
        .feed('B', 'o', 'INPUT1')
        .emit('o', 'OUTPUT0', 'O')
        .doc(),
  },
  {
    code: 'unused-input',
    bad: () => chain().input('W', 'FP32', [-1]).doc(),
    good: () => chain().doc(),
    expect: { nodeId: 'W', severity: 'error' },
  },
  {
    code: 'unused-output',
    expect: { nodeId: 'simple', port: 'OUTPUT1', severity: 'warning' },
    fixIncludes: 'connect',
    bad: () =>
      graphFixture('e', 8)
        .input('A', 'INT32', [16])
        .input('B', 'INT32', [16])
        .model('simple', 'simple')
        .output('O', 'INT32', [16])
        .feed('A', 'simple', 'INPUT0')
        .feed('B', 'simple', 'INPUT1')
        .emit('simple', 'OUTPUT0', 'O')
        .doc(),
    good: addSubGraph,
  },
  {
    code: 'invalid-name',
    bad: () => ({ ...chain().doc(), name: 'my/ens' }),
    good: () => ({ ...chain().doc(), name: 'my_ens-1.2' }),
  },
  {
    code: 'invalid-name',
    bad: () =>
      graphFixture('e', 4)
        .input('X"1', 'FP32', [-1], { id: 'X' })
        .model('id', 'identity')
        .output('Y', 'FP32', [-1])
        .feed('X', 'id', 'INPUT0')
        .emit('id', 'OUTPUT0', 'Y')
        .doc(),
    good: () => chain().doc(),
    expect: { nodeId: 'X' },
  },
  {
    code: 'duplicate-tensor-name',
    bad: () => chain().output('Y', 'FP32', [-1], { id: 'Y2' }).emit('id', 'OUTPUT0', 'Y2').doc(),
    good: () => chain().output('Y2', 'FP32', [-1]).emit('id', 'OUTPUT0', 'Y2').doc(),
    expect: { nodeId: 'Y2' },
  },
  {
    code: 'dtype-mismatch',
    bad: () =>
      graphFixture('e', 4)
        .input('X', 'INT32', [-1])
        .model('id', 'identity')
        .output('Y', 'FP32', [-1])
        .feed('X', 'id', 'INPUT0')
        .emit('id', 'OUTPUT0', 'Y')
        .doc(),
    good: () => chain().doc(),
    expect: { edgeId: 'e1', port: 'INPUT0' },
    fixIncludes: 'FP32',
  },
  // A non-batching ensemble's input [-1] is rank 1; the batching model wants [-1,-1] (batch dim implied).
  {
    code: 'shape-mismatch',
    bad: () => chain(0).doc(),
    good: () =>
      graphFixture('e', 0)
        .input('X', 'FP32', [-1, -1])
        .model('id', 'identity')
        .output('Y', 'FP32', [-1, -1])
        .feed('X', 'id', 'INPUT0')
        .emit('id', 'OUTPUT0', 'Y')
        .doc(),
    fixIncludes: 'batch dimension',
  },
  // A non-batching model [-1,4] fits a batching ensemble's [4] (full shape [-1,4]); [5] does not.
  {
    code: 'shape-mismatch',
    expect: { nodeId: 'nb' },
    fixIncludes: '[4]',
    bad: () =>
      graphFixture('e', 4)
        .input('X', 'FP32', [5])
        .model('nb', 'nobatch')
        .output('Y', 'FP32', [4])
        .feed('X', 'nb', 'INPUT0')
        .emit('nb', 'OUTPUT0', 'Y')
        .doc(),
    good: () =>
      graphFixture('e', 4)
        .input('X', 'FP32', [4])
        .model('nb', 'nobatch')
        .output('Y', 'FP32', [4])
        .feed('X', 'nb', 'INPUT0')
        .emit('nb', 'OUTPUT0', 'Y')
        .doc(),
  },
  {
    code: 'batch-size',
    bad: () =>
      graphFixture('e', 8)
        .input('X', 'FP32', [-1])
        .model('id', 'small_batch')
        .output('Y', 'FP32', [-1])
        .feed('X', 'id', 'INPUT0')
        .emit('id', 'OUTPUT0', 'Y')
        .doc(),
    good: () => chain(2).doc(),
    expect: { nodeId: 'id' },
    fixIncludes: 'max_batch_size: 8 on small_batch',
  },
  {
    code: 'batch-size',
    bad: () =>
      graphFixture('e', 8)
        .input('X', 'FP32', [-1])
        .model('id', 'identity')
        .output('Y', 'FP32', [-1])
        .feed('X', 'id', 'INPUT0')
        .emit('id', 'OUTPUT0', 'Y')
        .doc(),
    good: () =>
      graphFixture('e', 8)
        .input('X', 'FP32', [-1])
        .model('id', 'identity', { max_batch_size: 8 })
        .output('Y', 'FP32', [-1])
        .feed('X', 'id', 'INPUT0')
        .emit('id', 'OUTPUT0', 'Y')
        .doc(),
  },
  {
    code: 'unknown-model',
    bad: () => chain().model('ghost', 'no_such_model').doc(),
    good: () => chain().doc(),
    expect: { nodeId: 'ghost' },
  },
  {
    code: 'model-unavailable',
    bad: () => chain().model('b', 'broken').doc(),
    good: () => chain().doc(),
    expect: { nodeId: 'b' },
  },
  {
    code: 'invalid-model-settings',
    bad: () =>
      chain()
        .model('id2', 'identity', { instance_group: [{ count: 0, kind: 'KIND_CPU' }] })
        .doc(),
    good: () => chain().model('id2', 'identity').doc(),
  },
  {
    code: 'invalid-model-settings',
    bad: () =>
      graphFixture('e', 4)
        .input('X', 'FP32', [-1])
        .model('id', 'identity', { dynamic_batching: { preferred_batch_size: [16] } })
        .output('Y', 'FP32', [-1])
        .feed('X', 'id', 'INPUT0')
        .emit('id', 'OUTPUT0', 'Y')
        .doc(),
    good: () =>
      graphFixture('e', 4)
        .input('X', 'FP32', [-1])
        .model('id', 'identity', { dynamic_batching: { preferred_batch_size: [4] } })
        .output('Y', 'FP32', [-1])
        .feed('X', 'id', 'INPUT0')
        .emit('id', 'OUTPUT0', 'Y')
        .doc(),
  },
  {
    code: 'invalid-model-settings',
    bad: () => chain().model('v', 'vad', { max_batch_size: 0, dynamic_batching: {} }).doc(),
    good: () => chain().model('v', 'vad', { max_batch_size: 0, dynamic_batching: {}, sequence_batching: null }).doc(),
  },
  {
    code: 'conflicting-model-settings',
    bad: () =>
      chain()
        .model('id2', 'identity', { instance_group: [{ count: 2 }] })
        .doc(),
    good: () => chain().model('id2', 'identity', {}).doc(),
    expect: { nodeId: 'id2' },
  },
  {
    code: 'stateful-model',
    bad: () => chain().model('v', 'vad', { max_batch_size: 0 }).doc(),
    good: () => chain().model('v', 'vad', { max_batch_size: 0, sequence_batching: null }).doc(),
    expect: { severity: 'warning', nodeId: 'v' },
  },
  {
    code: 'state-batch-dim',
    bad: () => chain().model('v', 'vad').doc(),
    good: () => chain().model('v', 'vad', { max_batch_size: 0 }).doc(),
    expect: { nodeId: 'v', port: 'state', fix: 'set max_batch_size: 0 on vad' },
  },
  {
    code: 'mixed-decoupled-sources',
    bad: () => gated(false),
    good: () => gated(true),
    expect: { nodeId: 'crop' },
    fixIncludes: "route 'INPUT1' THROUGH the gate: add it to the ports of 'exit'",
  },
  {
    code: 'mixed-decoupled-sources',
    bad: () =>
      chain(0)
        .input('A', 'FP32', [-1])
        .model('rep', 'repeat')
        .model('o', 'optional_in', { max_batch_size: 0 })
        .output('O', 'FP32', [-1])
        .feed('A', 'rep', 'IN')
        .wire('rep', 'OUT', 'o', 'INPUT0')
        .feed('A', 'o', 'INPUT1')
        .emit('o', 'OUTPUT0', 'O')
        .doc(),
    good: () => gated(false, 'error'),
    expect: { nodeId: 'o' },
  },
  {
    code: 'mixed-decoupled-outputs',
    bad: () => twoOutputs(false),
    good: () => twoOutputs(true),
    expect: { nodeId: 'P' },
  },
  {
    code: 'decoupled-graph',
    bad: () => gated(true),
    good: () => gated(true, 'error'),
    expect: { severity: 'warning' },
    fixIncludes: 'generate_stream',
  },
  {
    code: 'invalid-expression',
    bad: () => withCondition({ ports: ['boxes'], expression: 'len(boxes) ==' }),
    good: () => withCondition({ ports: ['boxes'], expression: 'len(boxes) == 0' }),
    expect: { nodeId: 'c', column: 14 },
  },
  {
    code: 'invalid-expression',
    bad: () => withCondition({ ports: ['boxes'], expression: 'max(boxse) < 0.5' }),
    good: () => withCondition({ ports: ['boxes'], expression: 'max(boxes) < 0.5' }),
    expect: { column: 5 },
  },
  {
    code: 'invalid-port-name',
    bad: () => withCondition({ ports: ['boxes', '2x'], expression: 'len(boxes) == 0' }),
    good: () => withCondition({ ports: ['boxes', 'x2'], expression: 'len(boxes) == 0' }),
    expect: { port: '2x' },
  },
  {
    code: 'router-no-consumers',
    bad: () => routed(2, 0),
    good: () => routed(2, 2),
    expect: { nodeId: 'r', severity: 'warning' },
  },
  {
    code: 'router-output-unconnected',
    bad: () => routed(3, 2),
    good: () => routed(2, 2),
    expect: { port: 'out_2', fix: 'connect out_2 or set count to 2' },
  },
  { code: 'invalid-param', bad: () => chain().router('r', 0).doc(), good: () => routed(2, 2) },
  {
    code: 'invalid-param',
    bad: () => chain().op('k', 'topk', { k: 0 }).doc(),
    good: () => chain().op('k', 'topk', { k: 3 }).doc(),
    expect: { nodeId: 'k' },
  },
  {
    code: 'unknown-op',
    bad: () =>
      chain()
        .op('k', 'nope' as 'topk')
        .doc(),
    good: () => chain().op('k', 'topk').doc(),
  },
  {
    code: 'unknown-op',
    bad: () =>
      chain()
        .op('k', '__proto__' as 'topk')
        .doc(),
    good: () => chain().op('k', 'topk').doc(),
  },
  {
    code: 'unknown-default-output',
    bad: () => withCondition({ ports: ['boxes'], strategy: 'bls', defaults: { texts: { shape: [0], data: [] } } }),
    good: () => withCondition({ ports: ['boxes'], strategy: 'bls', defaults: { Y: { shape: [0], data: [] } } }),
  },
];

describe('validateGraph', () => {
  it.each(CASES.map((c, i) => [`${c.code} #${i}`, c] as const))(
    '%s: triggered by the bad graph, not by the good one',
    (_, c) => {
      const found = diags(c.bad()).filter((d) => d.code === c.code);
      expect(found.length).toBeGreaterThan(0);
      if (c.expect) expect(found).toContainEqual(expect.objectContaining(c.expect));
      if (c.fixIncludes) expect(found.some((d) => d.fix?.includes(c.fixIncludes!))).toBe(true);
      for (const d of found) {
        expect(d.message.length).toBeGreaterThan(10);
        expect(d.fix).toBeTruthy();
      }
      expect(codes(c.good())).not.toContain(c.code);
    },
  );

  it('accepts valid graphs without any diagnostic', () => {
    expect(diags(addSubGraph())).toEqual([]);
    expect(diags(chain().doc())).toEqual([]);
    expect(diags(routed(2, 2))).toEqual([]);
  });

  it('reports only the decoupled warning for a gate the image passes through', () => {
    expect(codes(gated(true))).toEqual(['decoupled-graph']);
  });

  it('lists errors before warnings', () => {
    const ds = diags(chain().model('v', 'vad').doc());
    const firstWarning = ds.findIndex((d) => d.severity !== 'error');
    expect(ds.slice(firstWarning).every((d) => d.severity !== 'error')).toBe(true);
  });

  it('names the cycle in order', () => {
    const g = chain()
      .model('id2', 'identity')
      .wire('id', 'OUTPUT0', 'id2', 'INPUT0')
      .wire('id2', 'OUTPUT0', 'id', 'INPUT0')
      .doc();
    expect(diags(g).find((d) => d.code === 'cycle')?.message).toBe("cycle: 'id' → 'id2' → 'id'");
  });

  it('checks condition expressions against the types propagated through a router', () => {
    const g = graphFixture('e', 0)
      .input('S', 'BYTES', [-1])
      .router('r', 1)
      .condition('c', { ports: ['s'], strategy: 'error', expression: 'max(s) > 0' })
      .model('o', 'optional_in', { max_batch_size: 0 })
      .output('Y', 'FP32', [-1])
      .feed('S', 'r', 'in')
      .wire('r', 'out_0', 'c', 's')
      .wire('c', 's', 'o', 'INPUT0')
      .emit('o', 'OUTPUT0', 'Y')
      .doc();
    const ds = diags(g);
    expect(ds.map((d) => d.code)).toContain('invalid-expression');
    expect(ds.find((d) => d.code === 'dtype-mismatch')?.message).toContain('BYTES');
  });
});
