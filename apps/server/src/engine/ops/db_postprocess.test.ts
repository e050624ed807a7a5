import { describe, expect, it } from 'vitest';
import { tensorFromJson } from '@ensemble-studio/core';
import type { Tensor } from '@ensemble-studio/core';
import { readingOrder } from './db_postprocess.ts';
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

  it('uses 4-connectivity and puts the boxes in reading order (tops within 10 px are one line, read left to right)', () => {
    const m = map(['...#', '#.#.', '.#..']);
    const { boxes } = run(m, info(3, 4, 1, 1), { min_size: 1, unclip_ratio: 0 });
    expect(boxes).toEqual([0, 1, 1, 2, 1, 2, 2, 3, 2, 1, 3, 2, 3, 0, 4, 1]);
    // The same map at 20× scale: the rows are 20 px apart, so each is a line of its own.
    const scaled = run(m, info(60, 80, 0.05, 0.05), { min_size: 1, unclip_ratio: 0 }).boxes.filter((_, i) => i % 4 < 2).map(Math.round);
    expect(scaled).toEqual([60, 0, 0, 20, 40, 20, 20, 40]);
  });

  it('reads as PaddleOCR sorted_boxes: top then left, a box moving before its line neighbours to its right', () => {
    expect(readingOrder([10, 5], [200, 300])).toEqual([0, 1]);
    expect(readingOrder([10, 30], [200, 100])).toEqual([0, 1]);
    // Two lines of three words, tops jittering by a few pixels within each line.
    expect(readingOrder([52, 50, 48, 103, 100, 99], [300, 10, 600, 10, 300, 600])).toEqual([1, 0, 2, 3, 4, 5]);
    expect(readingOrder([], [])).toEqual([]);
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
