import { describe, expect, it } from 'vitest';
import { encodeRequest } from '../testing/grpcTestClient.ts';
import { parsedInferRequest } from './decodeInfer.ts';
import { lengthField, stringField } from '../onnx/protobufWire.ts';
import { inferNames } from './inferNames.ts';

/** What protobufjs decodes of the same bytes, as inferNames reports it. */
function decodedNames(bytes: Buffer) {
  const req = parsedInferRequest(bytes)!;
  return {
    model: req.model_name,
    id: req.id,
    inputs: req.inputs.map((i) => i.name),
    outputs: (req.outputs ?? []).map((o) => o.name),
  };
}

/** Protobuf's wire format by hand (the ONNX editor's writer): field `no` holding bytes, a string. */
const field = (no: number, body: Uint8Array): Buffer => Buffer.from(lengthField(no, body));
const str = (no: number, s: string): Buffer => Buffer.from(stringField(no, s));

describe('inferNames', () => {
  it('reads the names protobufjs decodes, around tensors, parameters and contents of every kind', () => {
    const f32 = Buffer.from(new Float32Array(300).fill(1.5).buffer); // a 1200-byte field: a 2-byte length
    for (const message of [
      { model_name: 'm' },
      { id: 'req-1', model_name: 'détection ☃', model_version: '3' },
      {
        model_name: 'ocr',
        id: 'x'.repeat(200),
        parameters: { sequence_id: { int64_param: '42' }, flag: { bool_param: true }, s: { string_param: 'v' } },
        inputs: [
          { name: 'image', datatype: 'UINT8', shape: [1, 160, 640, 3], parameters: { p: { int64_param: '7' } } },
          {
            name: '',
            datatype: 'BYTES',
            shape: [2],
            contents: { bytes_contents: [Buffer.from('a'), Buffer.from('bc')] },
          },
          {
            name: 'f',
            datatype: 'FP32',
            shape: [300],
            contents: { fp32_contents: Array.from({ length: 300 }, () => 2.5) },
          },
        ],
        outputs: [{ name: 'boxes', parameters: { classification: { int64_param: '3' } } }, { name: 'texts' }],
        raw_input_contents: [f32, Buffer.alloc(0)],
      },
      { inputs: Array.from({ length: 200 }, (_, i) => ({ name: `x${i}`, datatype: 'FP32', shape: [1] })) },
    ]) {
      const bytes = encodeRequest('ModelInfer', message);
      expect(inferNames(bytes), JSON.stringify(message).slice(0, 80)).toEqual(decodedNames(bytes));
    }
  });

  it('reads a field sent twice as protobuf does (the last one), and skips fields it does not know', () => {
    const input = (...parts: Buffer[]) => field(5, Buffer.concat(parts));
    const bytes = Buffer.concat([
      str(3, 'first id'),
      str(1, 'a'),
      Buffer.from([0x48, 0x96, 0x01]), // field 9, a varint: unknown
      Buffer.from([0x51, 1, 2, 3, 4, 5, 6, 7, 8]), // field 10, fixed64: unknown
      Buffer.from([0x5d, 1, 2, 3, 4]), // field 11, fixed32: unknown
      input(str(1, 'x'), str(2, 'FP32'), str(1, 'x2')),
      str(1, 'b'),
      input(str(2, 'INT8')),
      str(3, 'second id'),
      field(6, Buffer.concat([str(1, 'o1'), str(1, 'o2')])),
      str(99, 'an unknown string'),
    ]);
    expect(inferNames(bytes)).toEqual({ model: 'b', id: 'second id', inputs: ['x2', ''], outputs: ['o2'] });
    expect(inferNames(bytes)).toEqual(decodedNames(bytes));
  });
});
