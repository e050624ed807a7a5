import { describe, expect, it } from 'vitest';
import { graphFixture } from '../testing/fixtures.ts';
import type { GraphDoc } from './types.ts';
import { LAYOUT_COLUMN_PX, LAYOUT_GAP, layoutGraph, layoutPositions } from './layout.ts';

/** in → n0 → n1 → … → n(len-1) → out, every node 200×80. */
function chain(len: number): { graph: GraphDoc; sizes: Record<string, { width: number; height: number }> } {
  const f = graphFixture().input('in', 'FP32', [-1]);
  let prev = 'in';
  let port = 'out';
  for (let i = 0; i < len; i++) {
    f.router(`n${i}`, 1).wire(prev, port, `n${i}`, 'in');
    prev = `n${i}`;
    port = 'out_0';
  }
  const graph = f.output('out', 'FP32', [-1]).emit(prev, port, 'out').doc();
  return { graph, sizes: Object.fromEntries(graph.nodes.map((n) => [n.id, { width: 200, height: 80 }])) };
}

const overlaps = (pos: Record<string, { x: number; y: number }>, size: { width: number; height: number }) => {
  const ids = Object.keys(pos);
  return ids.some((a, i) =>
    ids
      .slice(i + 1)
      .some((b) => Math.abs(pos[a]!.x - pos[b]!.x) < size.width && Math.abs(pos[a]!.y - pos[b]!.y) < size.height),
  );
};

describe('layoutGraph', () => {
  it('places nodes by longest path from the inputs, level with what feeds them', () => {
    const g = graphFixture()
      .input('A', 'FP32', [-1])
      .model('m1', 'identity')
      .model('m2', 'identity')
      .output('Y', 'FP32', [-1])
      .output('Z', 'FP32', [-1])
      .feed('A', 'm1', 'INPUT0')
      .wire('m1', 'OUTPUT0', 'm2', 'INPUT0')
      .emit('m2', 'OUTPUT0', 'Y')
      .emit('m1', 'OUTPUT0', 'Z')
      .doc();
    const laid = layoutGraph(g);
    const at = Object.fromEntries(laid.nodes.map((n) => [n.id, n.position]));
    expect([at.A!.x, at.m1!.x, at.m2!.x, at.Y!.x]).toEqual([0, 1, 2, 3].map((c) => c * LAYOUT_COLUMN_PX));
    // Z is fed by m1, so it sits in m2's column (not pushed to the end), below m2.
    expect(at.Z!.x).toBe(2 * LAYOUT_COLUMN_PX);
    expect(at.Z!.y).toBeGreaterThan(at.m2!.y);
    expect([at.A!.y, at.m1!.y, at.m2!.y, at.Y!.y]).toEqual([0, 0, 0, 0]);
    expect(g.nodes[0]?.position).toEqual({ x: 0, y: 0 });
    expect(laid.edges).toBe(g.edges);
  });

  it('uses measured sizes: a wide column pushes the next one right, tall nodes push their neighbours down', () => {
    const g = graphFixture()
      .input('A', 'FP32', [-1])
      .router('r', 2)
      .output('Y', 'FP32', [-1])
      .output('Z', 'FP32', [-1])
      .feed('A', 'r', 'in')
      .emit('r', 'out_0', 'Y')
      .emit('r', 'out_1', 'Z')
      .doc();
    const at = layoutPositions(g, {
      sizes: {
        A: { width: 500, height: 60 },
        r: { width: 180, height: 90 },
        Y: { width: 180, height: 300 },
        Z: { width: 180, height: 60 },
      },
    });
    expect(at.r!.x).toBe(500 + LAYOUT_GAP.column);
    expect(at.Z!.y).toBeGreaterThanOrEqual(at.Y!.y + 300 + LAYOUT_GAP.row);
  });

  it("wraps a long chain into bands that fill the view's aspect, without overlaps", () => {
    const { graph, sizes } = chain(14);
    const flat = layoutPositions(graph, { sizes });
    expect(new Set(Object.values(flat).map((p) => p.y))).toEqual(new Set([0]));
    const wrapped = layoutPositions(graph, { sizes, view: { width: 900, height: 640 } });
    const rows = [...new Set(Object.values(wrapped).map((p) => p.y))].sort((a, b) => a - b);
    expect(rows.length).toBeGreaterThan(2);
    const width = Math.max(...Object.values(wrapped).map((p) => p.x)) + 200;
    const height = rows.at(-1)! + 80;
    // Fills roughly the requested shape (a flat chain of 16 would be 16 × wider than tall).
    expect(width / height).toBeGreaterThan(0.6);
    expect(width / height).toBeLessThan(3);
    expect(overlaps(wrapped, { width: 200, height: 80 })).toBe(false);
    // Reading order is kept: each band starts where the previous one ended.
    expect(wrapped.n0!.y).toBe(0);
    expect(wrapped.out!.y).toBe(rows.at(-1));
  });

  it('keeps a graph that already fits the view in one band', () => {
    const { graph, sizes } = chain(1);
    expect(
      new Set(Object.values(layoutPositions(graph, { sizes, view: { width: 900, height: 640 } })).map((p) => p.y)),
    ).toEqual(new Set([0]));
  });

  it('orders a column by its predecessors so edges do not cross', () => {
    const g = graphFixture()
      .input('A', 'FP32', [-1])
      .input('B', 'FP32', [-1])
      .output('fromB', 'FP32', [-1])
      .output('fromA', 'FP32', [-1])
      .emit('B', 'out', 'fromB')
      .emit('A', 'out', 'fromA')
      .doc();
    const at = layoutPositions(g);
    expect(at.A!.y).toBeLessThan(at.B!.y);
    expect(at.fromA!.y).toBeLessThan(at.fromB!.y);
  });

  it('terminates on a cycle', () => {
    const g = graphFixture()
      .model('a', 'identity')
      .model('b', 'identity')
      .wire('a', 'OUTPUT0', 'b', 'INPUT0')
      .wire('b', 'OUTPUT0', 'a', 'INPUT0')
      .doc();
    expect(layoutGraph(g, { view: { width: 900, height: 700 } }).nodes).toHaveLength(2);
  });
});
