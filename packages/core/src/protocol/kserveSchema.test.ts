import { describe, expect, it } from 'vitest';
import { readInferBody } from './kserveSchema.ts';

const x = { name: 'x', datatype: 'FP32', shape: [2], data: [1, 2] };

describe('readInferBody', () => {
  it('reads inputs, parameters and requested outputs; loosely typed optional fields read as absent', () => {
    const data = [
      [1, 2],
      [3, 4],
    ];
    expect(
      readInferBody({
        id: 7,
        parameters: 'fast',
        inputs: [{ ...x, shape: [2, 2], data, parameters: { binary_data_size: 16 }, extra: 1 }],
        outputs: [{ name: 'y', parameters: { binary_data: true } }, { name: 'z' }],
      }),
    ).toEqual({
      ok: true,
      body: {
        id: undefined,
        parameters: {},
        inputs: [{ name: 'x', datatype: 'FP32', shape: [2, 2], data, parameters: { binary_data_size: 16 } }],
        outputs: [
          { name: 'y', parameters: { binary_data: true } },
          { name: 'z', parameters: {} },
        ],
      },
    });
  });

  it('keeps the data array as sent: a large tensor is not copied by the schema', () => {
    const data = new Array(1000).fill(0);
    const r = readInferBody({ inputs: [{ ...x, shape: [1000], data }] });
    expect(r.ok && r.body.inputs[0]!.data).toBe(data);
  });

  it.each([
    [[], 'infer request must be a JSON object'],
    [{}, 'infer request needs an "inputs" array'],
    [{ inputs: {} }, 'infer request needs an "inputs" array'],
    [{ inputs: [5] }, 'each input needs a "name"'],
    [{ inputs: [{ ...x, name: 3 }] }, 'each input needs a "name"'],
    [{ inputs: [{ ...x, datatype: 'FLOAT' }] }, 'input \'x\' has unknown datatype "FLOAT"'],
    [{ inputs: [{ name: 'x', shape: [1] }] }, "input 'x' has unknown datatype undefined"],
    [{ inputs: [{ ...x, shape: [-1] }] }, "input 'x' shape must be an array of non-negative integers"],
    [{ inputs: [{ ...x, shape: 2 }] }, "input 'x' shape must be an array of non-negative integers"],
    [{ inputs: [x], outputs: [{ parameters: {} }] }, 'each requested output needs a "name"'],
  ])('rejects %j: %s', (body, error) => {
    expect(readInferBody(body)).toEqual({ ok: false, error });
  });

  it('names an input called __proto__ like any other', () => {
    const body = JSON.parse('{"inputs":[{"name":"__proto__","datatype":"FLOAT","shape":[1],"data":[1]}]}');
    expect(readInferBody(body)).toEqual({ ok: false, error: 'input \'__proto__\' has unknown datatype "FLOAT"' });
  });
});
