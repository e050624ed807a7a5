import { describe, expect, it } from 'vitest';
import type { ClientMessage } from '@ensemble-studio/core';
import { addFrame, pendingBinary, refOf, type MessageWithInputs } from './pendingBinary.ts';

const start = (inputs: MessageWithInputs['inputs']): ClientMessage => ({
  type: 'run.start',
  requestId: 'r1',
  graph: 'g',
  inputs,
});
const frame = (bytes: number) => Buffer.alloc(bytes, 1);

describe('pendingBinary', () => {
  it('is undefined for a message that announces no binary frame', () => {
    expect(pendingBinary({ type: 'ping', at: 1 }, 10, {})).toBeUndefined();
    expect(pendingBinary(start({ x: { datatype: 'FP32', shape: [2], data: [1, 2] } }), 10, {})).toBeUndefined();
  });

  it('waits for one frame per binary input, each of its input size (BYTES: any)', () => {
    const p = pendingBinary(
      start({
        a: { datatype: 'FP32', shape: [2, 3], binary: 1 },
        t: { datatype: 'BYTES', shape: [1], binary: 0 },
      }),
      40,
      {},
    )!;
    expect(p).toMatchObject({ needed: 2, bytes: 40, frames: [], sizes: [undefined, 24] });
  });

  it('refuses frame indices that are not 0..n-1, each once', () => {
    expect(() => pendingBinary(start({ a: { datatype: 'FP32', shape: [1], binary: 1 } }), 10, {})).toThrow(
      /binary frame 1/,
    );
  });
});

describe('addFrame', () => {
  const twoFrames = () =>
    pendingBinary(
      start({ a: { datatype: 'FP32', shape: [4], binary: 0 }, b: { datatype: 'INT8', shape: [3], binary: 1 } }),
      100,
      {},
    )!;

  it('takes frames of the announced sizes, in order, as views of what arrived', () => {
    const p = twoFrames();
    const first = frame(16);
    expect(addFrame(p, first, 1000)).toBeUndefined();
    expect(addFrame(p, frame(3), 1000)).toBeUndefined();
    expect(p.frames.map((f) => f.byteLength)).toEqual([16, 3]);
    expect(p.frames[0]!.buffer).toBe(first.buffer);
    expect(p.bytes).toBe(119);
  });

  it('refuses a frame of the wrong size as it arrives', () => {
    const p = twoFrames();
    expect(addFrame(p, frame(15), 1000)).toEqual({
      code: 'bad-input',
      message: 'binary frame 0 has 15 bytes but its input needs 16',
    });
    expect(p.frames).toEqual([]);
  });

  it('holds the message and its frames together to the message limit', () => {
    const p = twoFrames();
    expect(addFrame(p, frame(16), 118)).toBeUndefined();
    const refused = addFrame(p, frame(3), 118);
    expect(refused?.code).toBe('limit');
    expect(refused?.message).toContain('maxWsMessageBytes=118');
    expect(p.frames).toHaveLength(1);
  });
});

describe('refOf', () => {
  it("names a run by its requestId and a stream's chunk by its streamId", () => {
    expect(refOf(start({}) as MessageWithInputs)).toBe('r1');
    expect(refOf({ type: 'stream.append', streamId: 's1', inputs: {} })).toBe('s1');
  });
});
