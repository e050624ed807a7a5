import { describe, expect, it } from 'vitest';
import { compileGraph } from '../compile/compileGraph.ts';
import { layoutPositions } from './layout.ts';
import { fixtureCatalogue, graphFixture, type GraphFixture } from '../testing/fixtures.ts';
import { validateGraph } from '../validate/validateGraph.ts';
import { indexGraph, topoSort } from './graphIndex.ts';
import { ancestors, findCycle, topoOrder } from './queries.ts';
import type { GraphDoc } from './types.ts';

const ids = (g: GraphDoc) => topoSort(indexGraph(g));

describe('indexGraph', () => {
  it('keeps every edge by node and port, and links only nodes that exist', () => {
    const g = graphFixture()
      .input('A', 'INT32', [16])
      .model('s', 'simple')
      .feed('A', 's', 'INPUT0')
      .feed('A', 's', 'INPUT1')
      .wire('ghost', 'out', 's', 'INPUT1')
      .doc();
    const idx = indexGraph(g);
    expect(idx.into('s').map((e) => e.source)).toEqual(['A', 'A', 'ghost']);
    expect(idx.into('s', 'INPUT1').map((e) => e.source)).toEqual(['A', 'ghost']);
    expect(idx.outOf('A', 'out').length).toBe(2);
    expect(idx.predecessors('s')).toEqual(['A']);
    expect(idx.successors('A')).toEqual(['s']);
    expect(idx.node('ghost')).toBeUndefined();
  });
});

describe('topoSort', () => {
  it('breaks ties between ready nodes by document order', () => {
    const g = graphFixture()
      .input('B', 'FP32', [-1], { id: 'b' })
      .input('A', 'FP32', [-1], { id: 'a' })
      .model('late', 'identity')
      .model('early', 'identity')
      .feed('a', 'late', 'INPUT0')
      .feed('b', 'early', 'INPUT0')
      .doc();
    expect(ids(g)).toEqual({ order: ['b', 'a', 'late', 'early'], blocked: [] });
  });

  it('places what it can and lists nodes on or after a cycle as blocked', () => {
    const g = graphFixture()
      .input('A', 'FP32', [-1], { id: 'a' })
      .model('m1', 'optional_in')
      .model('m2', 'identity')
      .model('after', 'identity')
      .feed('a', 'm1', 'INPUT0')
      .wire('m1', 'OUTPUT0', 'm2', 'INPUT0')
      .wire('m2', 'OUTPUT0', 'm1', 'INPUT1')
      .wire('m2', 'OUTPUT0', 'after', 'INPUT0')
      .doc();
    expect(ids(g)).toEqual({ order: ['a'], blocked: ['m1', 'm2', 'after'] });
    expect(findCycle(g)).toEqual(['m1', 'm2']);
  });
});

/** input → `n` routers of `mode`, each passing its one tensor on → output. */
function routerChain(n: number, mode: 'copy' | 'direct'): GraphFixture {
  const f = graphFixture('chain', 4)
    .input('x', 'FP32', [-1], { id: 'x' })
    .model('m', 'identity')
    .feed('x', 'm', 'INPUT0');
  let [prev, port] = ['m', 'OUTPUT0'];
  for (let i = 0; i < n; i++) {
    f.router(`r${i}`, 1, mode).wire(prev, port, `r${i}`, 'in');
    [prev, port] = [`r${i}`, 'out_0'];
  }
  return f.output('y', 'FP32', [-1], { id: 'y' }).wire(prev, port, 'y', 'in');
}

describe('a 20,000-node chain', () => {
  const N = 20_000;

  it('is ordered, searched and laid out without exhausting the stack', () => {
    const g = routerChain(N, 'copy').doc();
    const r = topoOrder(g);
    expect(r.ok && r.order.length).toBe(N + 3);
    expect(findCycle(g)).toBeNull();
    expect(ancestors(g, 'y').size).toBe(N + 2);
    expect(layoutPositions(g).y!.x).toBeGreaterThan(layoutPositions(g).m!.x);
  });

  it('is validated, with the type carried down every router', () => {
    const g = routerChain(N, 'copy').doc();
    expect(validateGraph(g, fixtureCatalogue()).filter((d) => d.severity === 'error')).toEqual([]);
  });

  it('is compiled through routers that only rename the tensor', () => {
    const g = routerChain(N, 'direct').doc();
    const r = compileGraph(g, fixtureCatalogue());
    const ensemble = r.files.find((f) => f.path === 'chain/config.pbtxt')?.text ?? '';
    expect(ensemble).toContain('model_name: "identity"');
  });
});
