import { describe, expect, it } from 'vitest';
import { frameCheck } from './frameLimits.ts';
import { FrameReader, frameTensors, FrameWriter } from './frames.ts';

/** A frame as PROTOCOL.md lays it out, built here rather than by FrameWriter. */
function rawFrame(header: object, blob: Uint8Array = new Uint8Array(0)): Buffer {
  const json = Buffer.from(JSON.stringify(header));
  const head = Buffer.alloc(8);
  head.writeUInt32LE(json.byteLength, 0);
  head.writeUInt32LE(blob.byteLength, 4);
  return Buffer.concat([head, json, blob]);
}

/** Feeds `data` in pieces of the given sizes (cycled) and collects the frames. */
function readInPieces(data: Buffer, sizes: number[]) {
  const reader = new FrameReader();
  const frames = [];
  for (let at = 0, k = 0; at < data.byteLength; k++) {
    const n = sizes[k % sizes.length]!;
    frames.push(...reader.push(data.subarray(at, at + n)));
    at += n;
  }
  return frames.map((f) => ({ header: f.header, blob: Buffer.from(f.blob) }));
}

describe('FrameReader', () => {
  const sent = Array.from({ length: 30 }, (_, i) => ({
    header: { type: 'response', id: i, pad: 'é'.repeat(i * 7) },
    blob: Buffer.alloc(i * 13, i),
  }));
  const data = Buffer.concat(sent.map((f) => rawFrame(f.header, f.blob)));

  it('gives back whole frames whether chunks cut them anywhere or pack several together', () => {
    for (const sizes of [[1], [3, 8, 1], [7], [4096], [data.byteLength]])
      expect(readInPieces(data, sizes), `pieces of ${sizes.join(',')}`).toEqual(sent);
  });

  it('puts each blob at a multiple of 8 in a buffer of its own, so numeric tensors are views', () => {
    const w = new FrameWriter();
    const outputs = w.tensors([['Y', { datatype: 'FP32', shape: [3], data: Float32Array.of(1, 2, 3) }]]);
    const bytes = Buffer.concat(w.finish({ type: 'response', id: 1, outputs, pad: 'x' }));
    const [first] = new FrameReader().push(bytes);
    const y = frameTensors(first!, 'outputs').Y!;
    expect(Array.from(y.data as Float32Array)).toEqual([1, 2, 3]);
    expect((y.data as Float32Array).buffer).toBe(first!.blob.buffer);
    expect(first!.blob.byteOffset % 8).toBe(0);
  });

  it('keeps a tensor named like a prototype key as a tensor of that name, not as the prototype', () => {
    const w = new FrameWriter();
    const tensor = (v: number) => ({ datatype: 'FP32' as const, shape: [1], data: Float32Array.of(v) });
    const inputs = w.tensors([
      ['__proto__', tensor(1)],
      ['X', tensor(2)],
    ]);
    const [frame] = new FrameReader().push(Buffer.concat(w.finish({ type: 'bls', inputs })));
    const got = frameTensors(frame!, 'inputs');
    expect(Object.keys(got)).toEqual(['__proto__', 'X']);
    expect(Object.getPrototypeOf(got)).toBe(Object.prototype);
    expect(Array.from(got['__proto__']!.data as Float32Array)).toEqual([1]);
    expect('datatype' in got).toBe(false);
  });

  it('refuses a header over its limit from the first 8 bytes', () => {
    const head = Buffer.alloc(8);
    head.writeUInt32LE(1000, 0);
    expect(() => new FrameReader(undefined, 512).push(head)).toThrow(/header of 1000 bytes, over the limit of 512/);
  });

  it('checks each header as soon as it is in, before the blob it announces has come', () => {
    const limits = { maxTensorElements: 1000, maxBodyBytes: 1 << 20 };
    const output = (n: number) => ({ name: 'Y', datatype: 'FP32', shape: [n], offset: 0, nbytes: 4 * n });
    const ok = rawFrame({ type: 'response', outputs: [output(1000)] }, new Uint8Array(4000));
    expect(new FrameReader(frameCheck(limits)).push(ok)).toHaveLength(1);
    const huge = rawFrame({ type: 'response', outputs: [output(200_000_000)] });
    // Only the header is pushed: the 800 MB blob it announces is never waited for.
    expect(() => new FrameReader(frameCheck(limits)).push(huge)).toThrow(
      "sent output 'Y' of 200000000 elements, over the limit maxTensorElements=1000",
    );
    const bytes = rawFrame({ type: 'response', outputs: [{ ...output(10), nbytes: 2 << 20 }] });
    expect(() => new FrameReader(frameCheck(limits)).push(bytes)).toThrow(
      `sent output 'Y' of ${2 << 20} bytes, over the limit maxBodyBytes=${1 << 20}`,
    );
  });

  it('refuses a blob larger than the tensors its header describes', () => {
    const lying = rawFrame({ type: 'log', message: 'x' });
    lying.writeUInt32LE(1 << 30, 4);
    expect(() => new FrameReader(frameCheck(undefined)).push(lying)).toThrow(
      `sent a frame of ${1 << 30} bytes of tensor data for tensors of 0 bytes`,
    );
  });

  it("copies a frame's bytes into its own buffer as each chunk comes, not all at once when it is whole", () => {
    const blob = Buffer.alloc(3 * 65536, 7);
    const frame = rawFrame({ type: 'response', outputs: [] }, blob);
    const reader = new FrameReader();
    const first = Buffer.from(frame.subarray(0, 65536));
    expect(reader.push(first)).toEqual([]);
    // Copied already: a chunk reused by its producer afterwards does not change the frame.
    first.fill(0);
    const [got] = reader.push(Buffer.from(frame.subarray(65536)));
    expect(Buffer.compare(Buffer.from(got!.blob), blob)).toBe(0);
  });
});
