import { describe, expect, it } from 'vitest';
import type { Tensor } from '@ensemble-studio/core';
import { classify } from './classification.ts';

const int32 = (shape: number[], ...v: number[]): Tensor => ({ datatype: 'INT32', shape, data: Int32Array.from(v) });

describe('classify (Triton classification extension)', () => {
  it("returns the k highest elements, highest first, as 'value:index' (Triton's own example)", () => {
    expect(classify(int32([4], 1, 5, 10, 4), 2, false)).toEqual({
      datatype: 'BYTES',
      shape: [2],
      data: ['10:2', '5:1'],
    });
  });

  it('writes floating point values with six decimals, and labels after the index', () => {
    const t: Tensor = { datatype: 'FP32', shape: [3], data: Float32Array.of(0.25, 0.5, 0.125) };
    expect(classify(t, 3, false, ['cat', 'dog']).data).toEqual(['0.500000:1:dog', '0.250000:0:cat', '0.125000:2']);
  });

  it('classifies each batch entry when the model batches, and asks for no more classes than there are', () => {
    expect(classify(int32([2, 3], 1, 2, 3, 9, 8, 7), 5, true)).toEqual({
      datatype: 'BYTES',
      shape: [2, 3],
      data: ['3:2', '2:1', '1:0', '9:0', '8:1', '7:2'],
    });
    // Not batched: the whole tensor is one entry.
    expect(classify(int32([2, 3], 1, 2, 3, 9, 8, 7), 1, false).data).toEqual(['9:3']);
  });

  it('compares 64-bit integers exactly', () => {
    const t: Tensor = { datatype: 'INT64', shape: [2], data: BigInt64Array.of(2n ** 60n, 2n ** 60n + 1n) };
    expect(classify(t, 1, false).data).toEqual([`${2n ** 60n + 1n}:1`]);
  });

  it('refuses what Triton refuses, with its words', () => {
    expect(() => classify({ datatype: 'BYTES', shape: [1], data: ['a'] }, 1, false)).toThrow(
      "class result not available for output due to unsupported type 'BYTES'",
    );
    const big: Tensor = { datatype: 'UINT8', shape: [1_000_001], data: new Uint8Array(1_000_001) };
    expect(() => classify(big, 1, false)).toThrow('classification output tensor too large');
  });

  it('picks the same classes as sorting every element (random data with ties, every k)', () => {
    let seed = 7;
    const next = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31);
    for (let trial = 0; trial < 200; trial++) {
      const n = 1 + (next() % 40);
      const values = Array.from({ length: n }, () => (next() % 9) - 4);
      const k = 1 + (next() % (n + 3));
      const reference = values
        .map((v, i) => ({ v, i }))
        .sort((a, b) => b.v - a.v || a.i - b.i)
        .slice(0, k)
        .map(({ v, i }) => `${v}:${i}`);
      expect(classify(int32([n], ...values), k, false).data, JSON.stringify({ values, k })).toEqual(reference);
    }
  });
});
