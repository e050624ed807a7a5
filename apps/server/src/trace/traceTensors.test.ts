import { describe, expect, it } from 'vitest';
import { MAX_TRACED_ELEMENTS, streamFloat, tensorRecord } from './traceTensors.ts';

describe('tensorRecord (TENSORS trace records)', () => {
  it("writes a tensor's data, shape and datatype as Triton's trace file holds them", () => {
    const ints = { datatype: 'INT32', shape: [1, 3], data: new Int32Array([1, -2, 3]) } as const;
    expect(JSON.parse(tensorRecord(4, 'TENSOR_QUEUE_INPUT', 'x', ints))).toEqual({
      id: 4,
      activity: 'TENSOR_QUEUE_INPUT',
      tensor: { name: 'x', data: '1,-2,3', shape: '1,3', dtype: 'INT32' },
    });
    const bools = { datatype: 'BOOL', shape: [2], data: new Uint8Array([1, 0]) } as const;
    expect(JSON.parse(tensorRecord(1, 'TENSOR_BACKEND_OUTPUT', 'b', bools)).tensor.data).toBe('1,0');
    const text = { datatype: 'BYTES' as const, shape: [2], data: ['a"b', 'c'] };
    expect(JSON.parse(tensorRecord(1, 'TENSOR_BACKEND_OUTPUT', 's', text)).tensor.data).toBe('"a"b","c"');
    const half = { datatype: 'FP16', shape: [1], data: new Uint16Array([15360]) } as const;
    expect(JSON.parse(tensorRecord(1, 'TENSOR_BACKEND_OUTPUT', 'h', half)).tensor.data).toBe('');
  });

  it('leaves out the data of a tensor past the element limit, and says so', () => {
    const big = {
      datatype: 'FP32',
      shape: [MAX_TRACED_ELEMENTS + 1],
      data: new Float32Array(MAX_TRACED_ELEMENTS + 1),
    } as const;
    expect(JSON.parse(tensorRecord(1, 'TENSOR_QUEUE_INPUT', 'big', big)).tensor).toMatchObject({
      data: '',
      truncated: true,
    });
  });
});

describe('streamFloat (a float as C++ streams it)', () => {
  it('writes six significant digits, %g style', () => {
    expect([0.1, 1, -2.5, 1e-7, 1234567, 999999.5, 0.0001, 123456, Math.fround(0.1)].map(streamFloat)).toEqual([
      '0.1',
      '1',
      '-2.5',
      '1e-07',
      '1.23457e+06',
      '1e+06',
      '0.0001',
      '123456',
      '0.1',
    ]);
    expect([NaN, Infinity, -Infinity, 0, -0].map(streamFloat)).toEqual(['nan', 'inf', '-inf', '0', '-0']);
  });
});
