import { describe, expect, it } from 'vitest';
import { interleaveOrder, median, percentile, perBlock, summarize } from './stats.ts';

describe('bench statistics', () => {
  it('median takes the middle value, or the mean of the two middle values', () => {
    expect(median([3, 1, 2])).toBe(2);
    expect(median([4, 1, 3, 2])).toBe(2.5);
    expect(median([7])).toBe(7);
    expect(() => median([])).toThrow(/no values/);
  });

  it('percentile uses the nearest rank and clamps to the extremes', () => {
    const xs = Array.from({ length: 100 }, (_, i) => 100 - i); // 100..1, unsorted on purpose
    expect(percentile(xs, 0.99)).toBe(100);
    expect(percentile(xs, 0.5)).toBe(51);
    expect(percentile(xs, 0)).toBe(1);
    expect(percentile(xs, 1)).toBe(100);
  });

  it('summarize keeps the blocks in the order they ran', () => {
    expect(summarize([1.1, 0.9, 1.0])).toEqual({ min: 0.9, median: 1.0, max: 1.1, blocks: [1.1, 0.9, 1.0] });
  });

  it('perBlock pairs the blocks of two measurements and refuses mismatched counts', () => {
    expect(perBlock([10, 12, 9], [5, 4, 3], (a, b) => a / b)).toEqual([2, 3, 3]);
    expect(() => perBlock([1, 2], [1], (a, b) => a + b)).toThrow(/2 blocks against 1/);
  });

  it('interleaveOrder runs every contender once per round and rotates who goes first', () => {
    expect(interleaveOrder(2, 2, 2)).toEqual([
      [
        [0, 1],
        [1, 0],
      ],
      [
        [0, 1],
        [1, 0],
      ],
    ]);
    const order = interleaveOrder(3, 3, 4);
    expect(order).toHaveLength(3);
    const firsts = [0, 0, 0];
    const positions = [0, 1, 2].map(() => [0, 0, 0]);
    for (const block of order) {
      expect(block).toHaveLength(4);
      for (const round of block) {
        expect([...round].sort()).toEqual([0, 1, 2]);
        firsts[round[0]!]!++;
        round.forEach((c, pos) => positions[c]![pos]!++);
      }
    }
    // 12 rounds over 3 contenders: each goes first, second and last 4 times.
    expect(firsts).toEqual([4, 4, 4]);
    expect(positions).toEqual([
      [4, 4, 4],
      [4, 4, 4],
      [4, 4, 4],
    ]);
    expect(() => interleaveOrder(0, 3, 3)).toThrow(/at least one contender/);
  });
});
