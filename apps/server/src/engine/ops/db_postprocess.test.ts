import { describe, expect, it } from 'vitest';
import { tensorFromJson } from '@ensemble-studio/core';
import type { Tensor } from '@ensemble-studio/core';
import { readingOrder } from './db_postprocess.ts';
import { OPS } from './registry.ts';

const ctx = { readText: () => '' };

/** A [1,1,h,w] map from rows of characters: '#' = 0.9, '+' = 0.7, '.' = 0.1. */
function map(rows: string[]): Tensor {
  const v = { '#': 0.9, '+': 0.7, '.': 0.1 } as Record<string, number>;
  return tensorFromJson(
    'FP32',
    [1, 1, rows.length, rows[0]!.length],
    rows
      .join('')
      .split('')
      .map((c) => v[c]!),
  );
}
const info = (h: number, w: number, rh: number, rw: number) => tensorFromJson('FP32', [4], [h, w, rh, rw]);
const run = (prob: Tensor, shapeInfo: Tensor, values: Record<string, number | string | boolean> = {}) => {
  const out = OPS.db_postprocess.run({ prob, shape_info: shapeInfo }, values, ctx);
  return {
    shape: out.boxes!.shape,
    boxes: Array.from(out.boxes!.data as Float32Array),
    scores: Array.from(out.scores!.data as Float32Array),
  };
};

/** Corners [[x,y]×4] of each box. */
const quads = (boxes: number[]) =>
  Array.from({ length: boxes.length / 8 }, (_, i) =>
    [0, 1, 2, 3].map((k) => [boxes[i * 8 + k * 2]!, boxes[i * 8 + k * 2 + 1]!]),
  );

describe('db_postprocess', () => {
  it('boxes a component by its smallest rectangle around the pixel centres, unclipped by area·ratio/perimeter, in image pixels', () => {
    const m = map([
      '............',
      '.########...',
      '.########...',
      '.########...',
      '.########...',
      '............',
      '............',
    ]);
    const { shape, boxes, scores } = run(m, info(14, 24, 0.5, 0.5));
    expect(shape).toEqual([1, 4, 2]);
    // centres x 1..8, y 1..4: 7×3, d = 21·1.5/20 = 1.575 → x −0.575..9.575, y −0.575..5.575, ×2, clipped at 0.
    const expected = [
      [0, 0],
      [19.15, 0],
      [19.15, 11.15],
      [0, 11.15],
    ];
    quads(boxes)[0]!.forEach(([x, y], k) => {
      expect(x).toBeCloseTo(expected[k]![0]!, 4);
      expect(y).toBeCloseTo(expected[k]![1]!, 4);
    });
    expect(scores[0]).toBeCloseTo(0.9, 6);
  });

  it('follows tilted text: the box is the rotated rectangle, corners top-left, top-right, bottom-right, bottom-left', () => {
    // A band rising one row every 4 columns (slope −1/4), 4 rows thick, clear of the map's edges.
    const rows = Array.from({ length: 20 }, (_, y) =>
      Array.from({ length: 40 }, (_, x) => {
        const top = 13 - Math.floor((x - 4) / 4);
        return x >= 4 && x <= 35 && y >= top && y < top + 4 ? '#' : '.';
      }).join(''),
    );
    const { shape, boxes } = run(map(rows), info(20, 40, 1, 1));
    expect(shape).toEqual([1, 4, 2]);
    const [tl, tr, br, bl] = quads(boxes)[0]!;
    const slope = (p: number[], q: number[]) => (q[1]! - p[1]!) / (q[0]! - p[0]!);
    expect(slope(tl!, tr!)).toBeLessThan(-0.15);
    expect(slope(bl!, br!)).toBeCloseTo(slope(tl!, tr!), 6);
    expect(tl![0]).toBeLessThan(tr![0]!);
    expect(bl![1]).toBeGreaterThan(tl![1]!);
  });

  it('drops a rectangle whose shorter side is under min_size, or under min_size + 2 once unclipped', () => {
    const m = map(['............', '.##########.', '.##########.', '.##########.', '............']);
    // centres 9×2, d = 18·1.5/22 ≈ 1.23 → 11.45×4.45.
    expect(run(m, info(10, 24, 0.5, 0.5), { min_size: 2 }).shape).toEqual([1, 4, 2]);
    expect(run(m, info(10, 24, 0.5, 0.5), { min_size: 3 }).shape).toEqual([0, 4, 2]);
    expect(run(m, info(10, 24, 0.5, 0.5), { min_size: 2, unclip_ratio: 0 }).shape).toEqual([0, 4, 2]);
  });

  it('drops a box whose sides are under 4 image pixels (PaddleOCR filter_tag_det_res)', () => {
    const m = map(['.....', '.###.', '.###.', '.###.', '.....']);
    // centres 2×2, d = 0.75 → 3.5 map pixels a side: 3.5 in the image at ratio 1 (dropped), 7 at ratio 0.5.
    expect(run(m, info(5, 5, 1, 1), { min_size: 1 }).shape).toEqual([0, 4, 2]);
    expect(run(m, info(10, 10, 0.5, 0.5), { min_size: 1 }).shape).toEqual([1, 4, 2]);
  });

  it('scores the mean over the whole rectangle, as box_score_fast fills the box polygon', () => {
    const l = map(['+++.', '+.+.', '+++.', '....']);
    // ring of 8 pixels at 0.7 around a 0.1 hole: the rectangle's mean is 5.7/9.
    expect(run(l, info(16, 16, 0.25, 0.25), { box_thresh: 0.63, min_size: 1 }).scores[0]).toBeCloseTo(5.7 / 9, 6);
    expect(run(l, info(16, 16, 0.25, 0.25), { box_thresh: 0.64, min_size: 1 }).shape).toEqual([0, 4, 2]);
  });

  it('puts the boxes in reading order by their top-left corners', () => {
    const m = map([
      '................',
      '................',
      '..........####..',
      '.####.....####..',
      '.####.....####..',
      '.####.....####..',
      '.####...........',
      '................',
      '..####..........',
      '..####..........',
      '..####..........',
      '..####..........',
    ]);
    // At ratio 0.25 the right box's top (3.5 px) is 4 px above the left one's (7.5 px): one line,
    // read left to right; the third box is a line of its own (27.5 px).
    const firstCorners = quads(run(m, info(48, 64, 0.25, 0.25), { min_size: 1 }).boxes).map((q) => q[0]!);
    expect(firstCorners.map(([x, y]) => [x, y])).toEqual([
      [0, 7.5],
      [35.5, 3.5],
      [3.5, 27.5],
    ]);
  });

  it('reads as PaddleOCR sorted_boxes: top then left, a box moving before its line neighbours to its right', () => {
    expect(readingOrder([10, 5], [200, 300])).toEqual([0, 1]);
    expect(readingOrder([10, 30], [200, 100])).toEqual([0, 1]);
    // Two lines of three words, tops jittering by a few pixels within each line.
    expect(readingOrder([52, 50, 48, 103, 100, 99], [300, 10, 600, 10, 300, 600])).toEqual([1, 0, 2, 3, 4, 5]);
    expect(readingOrder([], [])).toEqual([]);
  });

  it('considers only the first max_candidates components', () => {
    const m = map(['###.###.###', '###.###.###', '###.###.###']);
    expect(run(m, info(12, 44, 0.25, 0.25), { min_size: 1 }).shape).toEqual([3, 4, 2]);
    expect(run(m, info(12, 44, 0.25, 0.25), { min_size: 1, max_candidates: 2 }).shape).toEqual([2, 4, 2]);
  });

  it('returns [0,4,2] boxes for an empty map', () => {
    const { shape, scores } = run(map(['....', '....']), info(2, 4, 1, 1));
    expect(shape).toEqual([0, 4, 2]);
    expect(scores).toEqual([]);
  });

  it('rejects a prob map that is not [1,1,H,W] and a bad shape_info', () => {
    const bad = tensorFromJson('FP32', [1, 2, 1, 1], [0, 0]);
    expect(() => run(bad, info(1, 1, 1, 1))).toThrow(/db_postprocess: input 'prob' must be \[1,1,H,W\]/);
    expect(() => run(map(['.']), info(1, 1, 0, 1))).toThrow(/db_postprocess: input 'shape_info'/);
  });
});
