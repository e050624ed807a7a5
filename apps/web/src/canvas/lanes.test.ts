import { describe, expect, it } from 'vitest';
import { edgeLanes, freeLanes } from './lanes.ts';

const node = (id: string, x: number, y: number) => ({ id, position: { x, y } });
const edge = (id: string, source: string, target: string) => ({
  id,
  source,
  sourcePort: 'out',
  target,
  targetPort: 'in',
});
const SIZE = { width: 176, height: 80 };

describe('edge lanes of a wrapped layout', () => {
  it('finds the strips between bands that no node overlaps', () => {
    expect(
      freeLanes([
        { top: 0, bottom: 80 },
        { top: 20, bottom: 120 },
        { top: 200, bottom: 280 },
        { top: 300, bottom: 380 },
      ]),
    ).toEqual([{ y: 160, height: 80 }]);
  });

  it('routes an edge into the next band along the lane above its target, and leaves forward edges as curves', () => {
    // Band 1: a → b; band 2 (below): c ← b wraps back to the left.
    const nodes = [node('a', 0, 0), node('b', 300, 0), node('c', 0, 200)];
    const lanes = edgeLanes(
      { nodes, edges: [edge('ab', 'a', 'b'), edge('bc', 'b', 'c')] },
      { a: SIZE, b: SIZE, c: SIZE },
    );
    expect([...lanes]).toEqual([['bc', 140]]);
  });

  it('spreads edges sharing a lane apart, the one to the higher target above', () => {
    const nodes = [node('a', 300, 0), node('b', 300, 100), node('c', 0, 300), node('d', 0, 400)];
    const sizes = { a: SIZE, b: SIZE, c: SIZE, d: SIZE };
    const lanes = edgeLanes({ nodes, edges: [edge('bd', 'b', 'd'), edge('ac', 'a', 'c')] }, sizes);
    expect(lanes.get('ac')! < lanes.get('bd')!).toBe(true);
    expect(Math.abs(lanes.get('ac')! - lanes.get('bd')!)).toBeGreaterThanOrEqual(12);
    for (const y of lanes.values()) expect(y > 180 && y < 300).toBe(true);
  });

  it('has no lane for a backward edge with no free strip above its target', () => {
    const nodes = [node('a', 300, 0), node('b', 0, 10)];
    expect(edgeLanes({ nodes, edges: [edge('ab', 'a', 'b')] }, { a: SIZE, b: SIZE }).size).toBe(0);
  });
});
