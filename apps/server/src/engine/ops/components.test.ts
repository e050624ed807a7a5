import fc from 'fast-check';
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

  it('finds every run of pixels over the threshold in rows of any width (off pixels are skipped eight at a time)', () => {
    // 0.5 is the threshold itself (off), NaN is off too.
    const pixel = fc.constantFrom(0, 1, 0.5, Number.NaN, 0.9);
    const map = fc.record({ w: fc.integer({ min: 1, max: 40 }), h: fc.integer({ min: 1, max: 4 }) }).chain(({ w, h }) =>
      fc.record({
        w: fc.constant(w),
        h: fc.constant(h),
        px: fc.array(pixel, { minLength: w * h, maxLength: w * h }),
      }),
    );
    fc.assert(
      fc.property(map, ({ w, h, px }) => {
        const expected: string[] = [];
        for (let y = 0; y < h; y++)
          for (let x = 0; x < w; x++)
            if (px[y * w + x]! > 0.5 && !(x > 0 && px[y * w + x - 1]! > 0.5)) {
              let end = x;
              while (end + 1 < w && px[y * w + end + 1]! > 0.5) end++;
              expected.push(`${y}:${x}-${end}`);
            }
        const found = components(Float32Array.from(px), h, w, 0.5).flatMap((c) =>
          Array.from(
            { length: c.ends.length / 4 },
            (_, r) => `${c.ends[4 * r + 1]}:${c.ends[4 * r]}-${c.ends[4 * r + 2]}`,
          ),
        );
        expect(found.sort()).toEqual(expected.sort());
      }),
    );
  });
});
