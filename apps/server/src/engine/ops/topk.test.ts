import { describe, expect, it } from 'vitest';
import { tensorFromJson } from '@ensemble-studio/core';
import { OPS } from './registry.ts';

const ctx = { readText: () => '' };

describe('topk', () => {
  it('returns the k largest values in descending order, ties by lower index', () => {
    const scores = tensorFromJson('FP32', [2, 4], [1, 3, 3, 2, -1, 0, Number.NaN, 5]);
    const before = Array.from(scores.data as Float32Array);
    const out = OPS.topk.run({ scores }, { k: 3 }, ctx);
    expect(out.values?.shape).toEqual([2, 3]);
    expect(Array.from(out.values!.data as Float32Array)).toEqual([3, 3, 2, 5, 0, -1]);
    expect(out.indices?.datatype).toBe('INT64');
    expect(Array.from(out.indices!.data as BigInt64Array, Number)).toEqual([1, 2, 3, 3, 1, 0]);
    expect(Array.from(scores.data as Float32Array)).toEqual(before);
  });

  it('rejects k larger than the row', () => {
    const scores = tensorFromJson('FP32', [1, 2], [1, 2]);
    expect(() => OPS.topk.run({ scores }, { k: 3 }, ctx)).toThrow(
      /topk: k = 3 exceeds the 2 columns of input 'scores'/,
    );
  });
});
