import { describe, expect, it } from 'vitest';
import { graphFixture } from '../graph/fixtures.ts';
import { layoutGraph } from './layout.ts';

describe('layoutGraph', () => {
  it('places nodes by longest path from the inputs, outputs in the last column', () => {
    const g = graphFixture().input('A', 'FP32', [-1]).model('m1', 'identity').model('m2', 'identity').output('Y', 'FP32', [-1]).output('Z', 'FP32', [-1])
      .feed('A', 'm1', 'INPUT0').wire('m1', 'OUTPUT0', 'm2', 'INPUT0').emit('m2', 'OUTPUT0', 'Y').emit('m1', 'OUTPUT0', 'Z').doc();
    const laid = layoutGraph(g);
    expect(Object.fromEntries(laid.nodes.map((n) => [n.id, n.position]))).toEqual({
      A: { x: 0, y: 0 }, m1: { x: 260, y: 0 }, m2: { x: 520, y: 0 }, Y: { x: 780, y: 0 }, Z: { x: 780, y: 140 },
    });
    expect(g.nodes[0]?.position).toEqual({ x: 0, y: 0 });
    expect(laid.edges).toBe(g.edges);
  });

  it('terminates on a cycle', () => {
    const g = graphFixture().model('a', 'identity').model('b', 'identity').wire('a', 'OUTPUT0', 'b', 'INPUT0').wire('b', 'OUTPUT0', 'a', 'INPUT0').doc();
    expect(layoutGraph(g).nodes).toHaveLength(2);
  });
});
