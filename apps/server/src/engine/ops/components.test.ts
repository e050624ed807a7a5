import { describe, expect, it } from 'vitest';
import { components } from './components.ts';

/** Components of a map drawn as rows of '#' (on) and '.' (off). */
const of = (...rows: string[]) =>
  components(
    Float32Array.from(rows.join(''), (ch) => (ch === '#' ? 1 : 0)),
    rows.length,
    rows[0]!.length,
    0.5,
  );

describe('components', () => {
  it('joins pixels that touch only at a corner, as OpenCV contours follow a region (8-connected)', () => {
    expect(of('#..', '.#.', '..#')).toHaveLength(1);
    expect(of('..#', '.#.', '#..')).toHaveLength(1);
    expect(of('##...', '..###')).toHaveLength(1);
  });

  it('keeps regions one clear column or row apart separate', () => {
    expect(of('#.#')).toHaveLength(2);
    expect(of('#..', '..#')).toHaveLength(2);
    expect(of('##', '..', '##')).toHaveLength(2);
  });

  it('reports bounding boxes and run ends, ordered by top-left y, then x', () => {
    const cs = of('..##', '.#..', '....', '#...');
    expect(cs.map(({ minX, maxX, minY, maxY }) => [minX, maxX, minY, maxY])).toEqual([
      [1, 3, 0, 1],
      [0, 0, 3, 3],
    ]);
    expect(cs[0]!.ends).toEqual([2, 0, 3, 0, 1, 1, 1, 1]);
  });

  it('links a run to every run it touches in the next row (a U joins at its base)', () => {
    expect(of('#...#', '#...#', '.###.')).toHaveLength(1);
    expect(of('#.#.#', '.#.#.')).toHaveLength(1);
  });
});
