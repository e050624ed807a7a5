import { describe, expect, it } from 'vitest';
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

  it('refuses a frame that announces more than its limit', () => {
    const head = Buffer.alloc(8);
    head.writeUInt32LE(10, 0);
    head.writeUInt32LE(1000, 4);
    expect(() => new FrameReader(512).push(head)).toThrow(/1018 bytes, over the limit of 512/);
  });
});
