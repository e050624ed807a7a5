import { describe, expect, it } from 'vitest';
import { addSubGraph, graphFixture } from '../testing/fixtures.ts';
import {
  ancestors,
  edgesInto,
  edgesOutOf,
  findCycle,
  incomers,
  inputNodes,
  nodeById,
  outgoers,
  outputNodes,
  reaches,
  topoOrder,
} from './queries.ts';

const diamond = () =>
  graphFixture('d')
    .input('A', 'FP32', [-1])
    .router('r', 2)
    .model('m1', 'identity')
    .model('m2', 'identity')
    .model('join', 'optional_in')
    .output('Y', 'FP32', [-1])
    .feed('A', 'r', 'in')
    .wire('r', 'out_0', 'm1', 'INPUT0')
    .wire('r', 'out_1', 'm2', 'INPUT0')
    .wire('m1', 'OUTPUT0', 'join', 'INPUT0')
    .wire('m2', 'OUTPUT0', 'join', 'INPUT1')
    .emit('join', 'OUTPUT0', 'Y')
    .doc();

describe('graph queries', () => {
  it('finds nodes and the edges around them', () => {
    const g = addSubGraph();
    expect(nodeById(g, 'simple')?.kind).toBe('model');
    expect(nodeById(g, 'nope')).toBeUndefined();
    expect(edgesInto(g, 'simple').map((e) => e.targetPort)).toEqual(['INPUT0', 'INPUT1']);
    expect(edgesInto(g, 'simple', 'INPUT1').map((e) => e.source)).toEqual(['INPUT1']);
    expect(edgesOutOf(g, 'simple', 'OUTPUT0').map((e) => e.target)).toEqual(['OUTPUT0']);
    expect(incomers(g, 'simple').map((n) => n.id)).toEqual(['INPUT0', 'INPUT1']);
    expect(outgoers(g, 'simple').map((n) => n.id)).toEqual(['OUTPUT0', 'OUTPUT1']);
    expect(inputNodes(g).map((n) => n.params.name)).toEqual(['INPUT0', 'INPUT1']);
    expect(outputNodes(g).map((n) => n.params.name)).toEqual(['OUTPUT0', 'OUTPUT1']);
  });

  it('lists each neighbour once even when several edges join them', () => {
    const g = graphFixture()
      .input('A', 'INT32', [16])
      .model('s', 'simple')
      .feed('A', 's', 'INPUT0')
      .feed('A', 's', 'INPUT1')
      .doc();
    expect(outgoers(g, 'A').map((n) => n.id)).toEqual(['s']);
  });

  it('orders a DAG producers first', () => {
    const r = topoOrder(diamond());
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    const at = (id: string) => r.order.indexOf(id);
    expect(r.order).toHaveLength(6);
    expect(at('A')).toBeLessThan(at('r'));
    expect(at('m1')).toBeLessThan(at('join'));
    expect(at('m2')).toBeLessThan(at('join'));
    expect(at('join')).toBeLessThan(at('Y'));
    expect(findCycle(diamond())).toBeNull();
  });

  it('returns the cycle instead of an order', () => {
    const g = graphFixture()
      .input('A', 'FP32', [-1])
      .model('a', 'identity')
      .model('b', 'identity')
      .model('c', 'identity')
      .feed('A', 'a', 'INPUT0')
      .wire('a', 'OUTPUT0', 'b', 'INPUT0')
      .wire('b', 'OUTPUT0', 'c', 'INPUT0')
      .wire('c', 'OUTPUT0', 'b', 'INPUT0')
      .doc();
    expect(topoOrder(g)).toEqual({ ok: false, cycle: ['b', 'c'] });
    expect(findCycle(g)).toEqual(['b', 'c']);
  });

  it('ignores edges to unknown nodes', () => {
    const g = graphFixture().input('A', 'FP32', [-1]).wire('A', 'out', 'ghost', 'x').doc();
    expect(topoOrder(g)).toEqual({ ok: true, order: ['A'] });
  });

  it('answers reachability and ancestry', () => {
    const g = diamond();
    expect(reaches(g, 'A', 'Y')).toBe(true);
    expect(reaches(g, 'm1', 'm2')).toBe(false);
    expect(reaches(g, 'Y', 'A')).toBe(false);
    expect([...ancestors(g, 'join')].sort()).toEqual(['A', 'm1', 'm2', 'r']);
  });
});
