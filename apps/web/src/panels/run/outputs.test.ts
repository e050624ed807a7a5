import { describe, expect, it } from 'vitest';
import type { TensorSummary } from '@ensemble-studio/core';
import { findBoxes } from './outputs.ts';

const t = (shape: number[], data: number[]): TensorSummary => ({ datatype: 'FP32', shape, preview: [], data });

describe('findBoxes', () => {
  it('reads [N,4,2] corner boxes (tilted ones included) and [N,4] axis-aligned ones as corners', () => {
    expect(findBoxes([{ source: 'db', name: 'boxes', t: t([1, 4, 2], [1, 2, 9, 4, 8, 8, 0, 6]) }])).toEqual([
      [
        [1, 2],
        [9, 4],
        [8, 8],
        [0, 6],
      ],
    ]);
    expect(findBoxes([{ source: 'm', name: 'rois', t: t([2, 4], [0, 0, 2, 1, 5, 5, 6, 7]) }])).toEqual([
      [
        [0, 0],
        [2, 0],
        [2, 1],
        [0, 1],
      ],
      [
        [5, 5],
        [6, 5],
        [6, 7],
        [5, 7],
      ],
    ]);
  });

  it('prefers a tensor named like boxes and ignores other shapes', () => {
    const other = { source: 'm', name: 'feat', t: t([1, 4], [0, 0, 1, 1]) };
    const boxes = { source: 'db', name: 'boxes', t: t([1, 4, 2], [0, 0, 3, 0, 3, 3, 0, 3]) };
    expect(findBoxes([other, boxes])?.[0]?.[1]).toEqual([3, 0]);
    expect(findBoxes([{ source: 'm', name: 'boxes', t: t([1, 4, 3], new Array(12).fill(0)) }])).toBeNull();
  });
});
