import { describe, expect, it } from 'vitest';
import { tensorToBytes } from '../http/kserveTensors.ts';
import { inferResponse, requestInputs, type WireInferRequest } from './grpcTensors.ts';
import { plainParameters } from './params.ts';

const req = (inputs: WireInferRequest['inputs'], raw?: Uint8Array[]): WireInferRequest => ({
  model_name: 'm',
  model_version: '',
  id: '',
  inputs,
  ...(raw ? { raw_input_contents: raw } : {}),
});
/** BYTES elements as the raw form carries them: a 4-byte little-endian length, then the bytes. */
const lengthPrefixed = (...items: string[]) =>
  Buffer.concat(
    items.flatMap((s) => {
      const b = Buffer.from(s);
      const n = Buffer.alloc(4);
      n.writeUInt32LE(b.length);
      return [n, b];
    }),
  );

describe('gRPC request tensors', () => {
  it('BYTES from raw length-prefixed bytes and from bytes_contents give the same strings', () => {
    const raw = requestInputs(
      req([{ name: 't', datatype: 'BYTES', shape: ['2'] }], [lengthPrefixed('héllo', '')]),
      100,
    ).inputs;
    const typed = requestInputs(
      req([
        {
          name: 't',
          datatype: 'BYTES',
          shape: ['2'],
          contents: { bytes_contents: [Buffer.from('héllo'), Buffer.alloc(0)] },
        },
      ]),
      100,
    ).inputs;
    expect(raw.t).toEqual({ datatype: 'BYTES', shape: [2], data: ['héllo', ''] });
    expect(typed.t).toEqual(raw.t);
  });

  it('64-bit integers arrive as decimal strings and keep every digit', () => {
    const t = requestInputs(
      req([
        { name: 'i', datatype: 'INT64', shape: ['1', '2'], contents: { int64_contents: ['9007199254740993', '-5'] } },
      ]),
      100,
    ).inputs.i!;
    expect(Array.from(t.data as BigInt64Array)).toEqual([9007199254740993n, -5n]);
    expect(t.shape).toEqual([1, 2]);
  });

  it('refuses what Triton refuses, naming the input: wrong contents list, counts, widths, raw/typed mix, limits', () => {
    const one = (input: WireInferRequest['inputs'][number], raw?: Uint8Array[]) => () =>
      requestInputs(req([input], raw), 100);
    expect(one({ name: 'h', datatype: 'FP16', shape: ['1'], contents: { fp32_contents: [1] } })).toThrow(
      "input 'h' of model 'm': FP16 data must be sent in raw_input_contents",
    );
    expect(one({ name: 'u', datatype: 'UINT8', shape: ['2'], contents: { uint_contents: [1, 300] } })).toThrow(
      /input 'u' element 1 is not a valid UINT8 value/,
    );
    expect(one({ name: 'f', datatype: 'FP32', shape: ['3'], contents: { fp32_contents: [1, 2] } })).toThrow(
      "input 'f' of model 'm' has 2 elements in contents.fp32_contents but shape [3] needs 3",
    );
    expect(
      one({ name: 'f', datatype: 'FP32', shape: ['2'], contents: { fp32_contents: [1, 2] } }, [new Uint8Array(8)]),
    ).toThrow("contents field must not be specified when using raw_input_contents for 'f' for model 'm'");
    expect(one({ name: 'f', datatype: 'FP32', shape: ['-1'] })).toThrow(/dimensions must be non-negative integers/);
    expect(one({ name: 'f', datatype: 'FP32', shape: ['101'] }, [new Uint8Array(404)])).toThrow(
      /over the limit maxTensorElements=100/,
    );
    expect(() =>
      requestInputs(
        req(
          [
            { name: 'a', datatype: 'FP32', shape: ['1'] },
            { name: 'b', datatype: 'FP32', shape: ['1'] },
          ],
          [new Uint8Array(4)],
        ),
        100,
      ),
    ).toThrow("model 'm': raw_input_contents has 1 entries but the request has 2 inputs (one each, in order)");
  });
});

describe('gRPC parameters and responses', () => {
  it('parameters become plain values; an id above 2^53 stays a string', () => {
    expect(
      plainParameters({
        sequence_id: { parameter_choice: 'int64_param', int64_param: '42' },
        big: { parameter_choice: 'uint64_param', uint64_param: '18446744073709551615' },
        sequence_start: { parameter_choice: 'bool_param', bool_param: true },
        s: { parameter_choice: 'string_param', string_param: 'x' },
      }),
    ).toEqual({ sequence_id: 42, big: '18446744073709551615', sequence_start: true, s: 'x' });
  });

  it('a response lists the requested outputs in order with their raw bytes; one the model did not make is left out', () => {
    const outputs = {
      a: { datatype: 'FP32' as const, shape: [2], data: new Float32Array([1, 2]) },
      b: { datatype: 'BYTES' as const, shape: [1], data: ['z'] },
    };
    const r = inferResponse({ model_name: 'm', model_version: '1', id: 'q' }, outputs, ['b', 'a']);
    expect(r.outputs).toEqual([
      { name: 'b', datatype: 'BYTES', shape: [1] },
      { name: 'a', datatype: 'FP32', shape: [2] },
    ]);
    expect(Buffer.from(r.raw_output_contents[0]!)).toEqual(lengthPrefixed('z'));
    expect(r.raw_output_contents[1]).toEqual(tensorToBytes(outputs.a));
    expect(inferResponse({ model_name: 'm', model_version: '1', id: '' }, outputs, ['c', 'a']).outputs).toEqual([
      { name: 'a', datatype: 'FP32', shape: [2] },
    ]);
  });
});
