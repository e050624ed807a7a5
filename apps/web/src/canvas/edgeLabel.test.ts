import { describe, expect, it } from 'vitest';
import { labelBox, labelLines, stackOffset, LABEL_CHAR_PX } from './edgeLabel.ts';

describe('edge labels', () => {
  it('keep one line where the gap between the nodes holds it, else put the shape under the dtype', () => {
    const text = 'FP32 [1,3,-1,-1]';
    expect(labelLines(text, 200)).toEqual([text]);
    expect(labelLines(text, 100)).toEqual(['FP32 ', '[1,3,-1,-1]']);
    expect(labelLines(text, 100).join('')).toBe(text);
    expect(labelLines('?', 0)).toEqual(['?']);
  });

  it('are as wide as their longest line and as tall as their lines', () => {
    const one = labelBox(['FP32 [1,3,-1,-1]']);
    const two = labelBox(['FP32 ', '[1,3,-1,-1]']);
    expect(two.width).toBeCloseTo(one.width - 5 * LABEL_CHAR_PX);
    expect(two.height).toBeGreaterThan(one.height);
  });

  it('of edges into the same node spread apart only as far as their height needs', () => {
    const tall = labelBox(['FP32 ', '[-1,4,2]']).height;
    const [upper, lower] = [stackOffset([0, 2], tall), stackOffset([1, 2], tall)];
    expect(upper).toBeLessThan(0);
    expect(lower).toBe(-upper);
    expect(stackOffset([0, 1], tall)).toBe(0);
    expect(stackOffset([0, 2], 10)).toBe(0); // short labels fit between their ports already
  });
});
