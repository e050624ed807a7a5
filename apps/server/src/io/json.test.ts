import { describe, expect, it } from 'vitest';
import { decodeJsonTensor } from './json.ts';

describe('decodeJsonTensor', () => {
  it('reads a nested array, inferring shape and dtype', () => {
    const t = decodeJsonTensor('[[1, 2, 3], [4, 5, 6]]');
    expect([t.datatype, t.shape, Array.from(t.data as Float32Array)]).toEqual(['FP32', [2, 3], [1, 2, 3, 4, 5, 6]]);
    expect(decodeJsonTensor('["a", "b"]').datatype).toBe('BYTES');
    expect(decodeJsonTensor('[[1, 2]]', 'INT64').datatype).toBe('INT64');
  });

  it('reads the KServe form with flat data and an explicit shape', () => {
    const t = decodeJsonTensor('{"datatype": "INT32", "shape": [2, 2], "data": [1, 2, 3, 4]}');
    expect([t.datatype, t.shape, Array.from(t.data as Int32Array)]).toEqual(['INT32', [2, 2], [1, 2, 3, 4]]);
  });

  it('says what is wrong', () => {
    expect(() => decodeJsonTensor('[[1, 2], [3]]')).toThrow(/decodeJsonTensor: ragged array/);
    expect(() => decodeJsonTensor('{"shape": [1]}')).toThrow(/needs a "data" field/);
    expect(() => decodeJsonTensor('{"datatype": "FLOAT", "data": [1]}')).toThrow(/unknown datatype "FLOAT"/);
    expect(() => decodeJsonTensor('{"shape": [3], "data": [1, 2]}')).toThrow(
      /decodeJsonTensor: tensor has 2 elements but shape \[3\] needs 3/,
    );
    expect(() => decodeJsonTensor('[1, "a"]')).toThrow(/mixed element types/);
    expect(() => decodeJsonTensor('{')).toThrow(/decodeJsonTensor: invalid JSON/);
  });
});
