import { describe, expect, it } from 'vitest';
import { convexHull, grow, meanInRect, minAreaRect, orderedCorners } from './rect.ts';

const round = (ps: [number, number][]) =>
  ps.map(([x, y]) => [Math.round(x * 1e6) / 1e6 + 0, Math.round(y * 1e6) / 1e6 + 0]);

describe('rotated rectangles', () => {
  it('hulls integer points without duplicates or collinear points', () => {
    expect(convexHull([0, 0, 2, 0, 1, 0, 0, 1])).toEqual([
      [0, 0],
      [2, 0],
      [0, 1],
    ]);
    expect(convexHull([0, 0, 1, 1, 2, 2, 1, 1])).toEqual([
      [0, 0],
      [2, 2],
    ]);
    expect(convexHull([0, 0, 4, 0, 4, 3, 0, 3, 2, 1, 2, 2])).toEqual([
      [0, 0],
      [4, 0],
      [4, 3],
      [0, 3],
    ]);
  });

  it('finds the smallest rectangle: axis-aligned for a box, tilted for a tilted band', () => {
    const box = minAreaRect(convexHull([0, 0, 4, 0, 4, 3, 0, 3]))!;
    expect(round(orderedCorners(box))).toEqual([
      [0, 0],
      [4, 0],
      [4, 3],
      [0, 3],
    ]);
    // A diamond's smallest rectangle is itself (area 8), not its 4×4 bounding box (16).
    const diamond = minAreaRect(convexHull([2, 0, 4, 2, 2, 4, 0, 2]))!;
    expect((diamond.a1 - diamond.a0) * (diamond.b1 - diamond.b0)).toBeCloseTo(8, 9);
    expect(
      minAreaRect([
        [0, 0],
        [1, 1],
      ]),
    ).toBeUndefined();
  });

  it('orders corners top-left, top-right, bottom-right, bottom-left, whichever edge the rectangle was built on', () => {
    // A rectangle tilted by atan(1/4): corners (0,1) (8,−1) (8.5,1) (0.5,3) in some order.
    const r = minAreaRect(convexHull([0, 1, 8, -1, 9, 3, 1, 5]))!;
    const [tl, tr, br, bl] = orderedCorners(r);
    expect(tl![0] < tr![0] && bl![0] < br![0]).toBe(true);
    expect(tl![1] < bl![1] && tr![1] < br![1]).toBe(true);
  });

  it('grows every side by d and averages the map over the pixel centres inside', () => {
    const r = minAreaRect(convexHull([1, 1, 2, 1, 2, 2, 1, 2]))!;
    expect(round(orderedCorners(grow(r, 0.5)))).toEqual([
      [0.5, 0.5],
      [2.5, 0.5],
      [2.5, 2.5],
      [0.5, 2.5],
    ]);
    const map = Float32Array.from({ length: 16 }, (_, i) => i);
    // pixels (1,1) (2,1) (1,2) (2,2) of a 4×4 ramp: 5, 6, 9, 10.
    expect(meanInRect(map, 4, 4, r)).toBe(7.5);
  });
});
