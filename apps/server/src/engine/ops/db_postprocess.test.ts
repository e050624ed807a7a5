import { describe, expect, it } from 'vitest';
import { tensorFromJson } from '@ensemble-studio/core';
import type { Tensor } from '@ensemble-studio/core';
import { OPS } from './registry.ts';

const ctx = { readText: () => '' };

/** A [1,1,h,w] map from rows of characters: '#' = 0.9, '+' = 0.7, '.' = 0.1. */
function map(rows: string[]): Tensor {
  const v = { '#': 0.9, '+': 0.7, '.': 0.1 } as Record<string, number>;
  return tensorFromJson('FP32', [1, 1, rows.length, rows[0]!.length], rows.join('').split('').map((c) => v[c]!));
}
const info = (h: number, w: number, rh: number, rw: number) => tensorFromJson('FP32', [4], [h, w, rh, rw]);
const run = (prob: Tensor, shapeInfo: Tensor, values: Record<string, number | string | boolean> = {}) => {
  const out = OPS.db_postprocess.run({ prob, shape_info: shapeInfo }, values, ctx);
  return { shape: out.boxes!.shape, boxes: Array.from(out.boxes!.data as Float32Array), scores: Array.from(out.scores!.data as Float32Array) };
};

describe('db_postprocess', () => {
  const twoBlobs = map([
    '........',
    '.####...',
    '.####...',
    '........',
    '.....###',
    '.....###',
  ]);

  it('unclips each component box by area·ratio/perimeter and maps it to image pixels', () => {
    const { shape, boxes, scores } = run(twoBlobs, info(12, 16, 0.5, 0.5), { min_size: 1 });
    expect(shape).toEqual([2, 4]);
    // blob 1: 4×2, d = 8·1.5/12 = 1 → [0,0,6,4] in the map → ×2.
    // blob 2: 3×2, d = 6·1.5/10 = 0.9 → [4.1,3.1,8.9,6.9] → [8.2,6.2,17.8,13.8] → clipped to 16×12.
    const expected = [0, 0, 12, 8, 8.2, 6.2, 16, 12];
    boxes.forEach((b, i) => expect(b).toBeCloseTo(expected[i]!, 4));
    scores.forEach((s) => expect(s).toBeCloseTo(0.9, 6));
  });

  it('drops boxes whose shorter side is below min_size', () => {
    const m = map(['###..', '###..', '###.#']);
    const { shape, boxes } = run(m, info(3, 5, 1, 1), { min_size: 3, unclip_ratio: 0 });
    expect(shape).toEqual([1, 4]);
    expect(boxes).toEqual([0, 0, 3, 3]);
  });

  it('scores a component by its own pixels, not its whole bounding box', () => {
    const l = map(['+++.', '+.+.', '+++.', '....']);
    // ring of 8 pixels at 0.7 around a 0.1 hole: component mean 0.7, bbox mean 0.63.
    expect(run(l, info(4, 4, 1, 1), { box_thresh: 0.69, min_size: 1 }).scores[0]).toBeCloseTo(0.7, 6);
    expect(run(l, info(4, 4, 1, 1), { box_thresh: 0.71, min_size: 1 }).shape).toEqual([0, 4]);
  });

  it('uses 4-connectivity and orders components by top-left y, then x', () => {
    const m = map(['...#', '#.#.', '.#..']);
    const { boxes } = run(m, info(3, 4, 1, 1), { min_size: 1, unclip_ratio: 0 });
    expect(boxes).toEqual([3, 0, 4, 1, 0, 1, 1, 2, 2, 1, 3, 2, 1, 2, 2, 3]);
  });

  it('considers only the first max_candidates components', () => {
    const m = map(['#.#.#']);
    expect(run(m, info(1, 5, 1, 1), { min_size: 1, max_candidates: 2 }).shape).toEqual([2, 4]);
  });

  it('returns [0,4] boxes for an empty map', () => {
    const { shape, scores } = run(map(['....', '....']), info(2, 4, 1, 1));
    expect(shape).toEqual([0, 4]);
    expect(scores).toEqual([]);
  });

  it('rejects a prob map that is not [1,1,H,W] and a bad shape_info', () => {
    const bad = tensorFromJson('FP32', [1, 2, 1, 1], [0, 0]);
    expect(() => run(bad, info(1, 1, 1, 1))).toThrow(/db_postprocess: input 'prob' must be \[1,1,H,W\]/);
    expect(() => run(map(['.']), info(1, 1, 0, 1))).toThrow(/db_postprocess: input 'shape_info'/);
  });
});
