import { describe, expect, it } from 'vitest';
import { encodeRequest } from '../testing/grpcTestClient.ts';
import { wellFormedInferRequest } from './wellFormed.ts';

const bytes = (...b: number[]) => Buffer.from(b);
/** A length-delimited field: tag, length, content. */
const field = (n: number, content: Buffer) => Buffer.concat([bytes(n * 8 + 2, content.length), content]);

describe('wellFormedInferRequest', () => {
  it('accepts what a protobuf encoder writes, unpacked repeated fields and unknown fields', () => {
    const encoded = encodeRequest('ModelInfer', {
      model_name: 'extractor',
      id: 'r1',
      parameters: { sequence_id: { int64_param: 7 }, flag: { bool_param: true }, w: { double_param: 0.5 } },
      inputs: [
        {
          name: 'x',
          datatype: 'FP32',
          shape: [1, 64],
          parameters: { p: { string_param: 'ü' } },
          contents: { fp32_contents: [1.5, 2], int64_contents: [-1, 3], bytes_contents: [Buffer.from([0xff])] },
        },
      ],
      outputs: [{ name: 'feat', parameters: { classification: { int64_param: 2 } } }],
      raw_input_contents: [Buffer.alloc(256, 0xff)],
    });
    expect(wellFormedInferRequest(encoded)).toBe(true);
    // shape as two unpacked varints; unknown fields 9 (varint), 10 (fixed64), 11 (bytes), 12 (fixed32).
    const input = Buffer.concat([field(1, Buffer.from('x')), bytes(3 * 8, 1, 3 * 8, 64)]);
    const unknown = bytes(
      9 * 8,
      0x80,
      1,
      10 * 8 + 1,
      1,
      2,
      3,
      4,
      5,
      6,
      7,
      8,
      11 * 8 + 2,
      1,
      0xff,
      12 * 8 + 5,
      1,
      2,
      3,
      4,
    );
    expect(wellFormedInferRequest(Buffer.concat([field(5, input), unknown]))).toBe(true);
    expect(wellFormedInferRequest(Buffer.alloc(0))).toBe(true);
  });

  it.each([
    ['a string longer than the bytes left', bytes(0x0a, 5, 0x41)],
    ['a length that overflows its message', bytes(0x0a, 0xff, 0xff, 0xff, 0x0f, 0x01)],
    ['a varint that never ends', bytes(9 * 8, 0x80, 0x80)],
    ['a tag that never ends', bytes(0x80)],
    ['field number 0', bytes(0, 1)],
    ['wire type 7', bytes(0x0f, 1, 1)],
    ['a group', bytes(9 * 8 + 3, 9 * 8 + 4)],
    ['a known string sent as a varint', bytes(1 * 8, 1)],
    ['a name that is not UTF-8', field(1, bytes(0xc3, 0x28))],
    // The input's name runs past the input's end, though not past the whole message's.
    ['a nested length past its message', Buffer.concat([field(5, bytes(0x0a, 3, 0x41)), bytes(0x41, 0x41, 0x41)])],
    ['packed FP32 contents of 6 bytes', field(5, field(5, field(6, Buffer.alloc(6))))],
    ['packed shape ending in an unfinished varint', field(5, field(3, bytes(1, 0x80)))],
    [
      'a fixed64 parameter cut short',
      field(4, Buffer.concat([field(1, Buffer.from('w')), field(2, bytes(4 * 8 + 1, 0, 0))])),
    ],
  ])('refuses %s', (_, message) => {
    expect(wellFormedInferRequest(message)).toBe(false);
  });
});
