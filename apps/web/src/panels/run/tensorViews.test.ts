import { describe, expect, it } from 'vitest';
import type { TensorSummary } from '@ensemble-studio/core';
import * as fixtures from '../../../../../packages/core/src/testing/fixtures.ts';
import { initialRun } from '../../run/runReducer.ts';
import type { RunState } from '../../store/types.ts';
import { findTopK, heatmapOf } from './tensorViews.ts';

const sum = (datatype: TensorSummary['datatype'], shape: number[], data?: number[]): TensorSummary => ({
  datatype,
  shape,
  preview: [],
  ...(data ? { data } : {}),
});

// A 2-class classifier (named like PaddleOCR's cls) → topk, and a det model → topk over its map.
const catalogue = fixtures.fixtureCatalogue();
catalogue.models.cls = {
  ...catalogue.models.det!,
  name: 'cls',
  config: {
    ...catalogue.models.det!.config,
    name: 'cls',
    output: [{ name: 'probs', data_type: 'TYPE_FP32', dims: [-1, 2] }],
  },
};
const graph = fixtures
  .graphFixture('g')
  .input('x', 'FP32', [-1, 3, 48, 192])
  .model('cls', 'cls')
  .op('angle', 'topk', { k: 1 })
  .model('det', 'det')
  .op('best', 'topk', { k: 2 })
  .feed('x', 'cls', 'x')
  .wire('cls', 'probs', 'angle', 'scores')
  .wire('det', 'prob', 'best', 'scores')
  .doc();

const run = (nodes: RunState['nodes']): RunState => ({ ...initialRun(), nodes });

describe('findTopK', () => {
  it('pairs INT64 indices with FP32 values of the same shape, one row per (row, rank), labelled after a cls model', () => {
    const found = findTopK(
      run({
        angle: {
          status: 'finished',
          outputs: { values: sum('FP32', [2, 1], [0.9, 0.6]), indices: sum('INT64', [2, 1], [0, 1]) },
        },
        best: {
          status: 'finished',
          outputs: { values: sum('FP32', [1, 2], [0.7, 0.2]), indices: sum('INT64', [1, 2], [5, 3]) },
        },
      }),
      graph,
      catalogue,
    );
    expect(found.map((f) => f.nodeId)).toEqual(['angle', 'best']);
    expect(found[0]!.rows).toEqual([
      { row: 0, rank: 0, index: 0, value: 0.9, label: '0°' },
      { row: 1, rank: 0, index: 1, value: 0.6, label: '180°' },
    ]);
    expect(found[1]!.rows).toEqual([
      { row: 0, rank: 0, index: 5, value: 0.7 },
      { row: 0, rank: 1, index: 3, value: 0.2 },
    ]);
  });

  it('needs both tensors, with data and matching shapes', () => {
    expect(
      findTopK(
        run({
          angle: {
            status: 'finished',
            outputs: { values: sum('FP32', [2, 2], [1, 2, 3, 4]), indices: sum('INT64', [2, 1], [0, 1]) },
          },
        }),
        graph,
        catalogue,
      ),
    ).toEqual([]);
    expect(
      findTopK(
        run({ angle: { status: 'finished', outputs: { values: sum('FP32', [2, 1]), indices: sum('INT64', [2, 1]) } } }),
        graph,
        catalogue,
      ),
    ).toEqual([]);
  });
});

describe('heatmapOf', () => {
  it('prefers the thumbnail and keeps the tensor aspect ratio', () => {
    const t = {
      ...sum('FP32', [1, 1, 160, 480]),
      thumbnail: { shape: [64, 64] as [number, number], data: Array(64 * 64).fill(0) },
    };
    expect(heatmapOf(t)).toMatchObject({ h: 64, w: 64, downsampled: true, aspect: 3 });
  });

  it('draws the first plane of small full data, but not boxes, vectors or other dtypes', () => {
    expect(heatmapOf(sum('FP32', [1, 2, 2, 3], [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12]))).toEqual({
      h: 2,
      w: 3,
      data: [1, 2, 3, 4, 5, 6],
      downsampled: false,
      aspect: 1.5,
    });
    expect(heatmapOf(sum('FP32', [3, 4], Array(12).fill(1)))).toBeNull();
    expect(heatmapOf(sum('FP32', [1, 8], Array(8).fill(1)))).toBeNull();
    expect(heatmapOf(sum('INT64', [4, 4], Array(16).fill(1)))).toBeNull();
    expect(heatmapOf(sum('FP32', [64, 64]))).toBeNull();
  });
});
