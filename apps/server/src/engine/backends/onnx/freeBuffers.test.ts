import { markAsUntransferable } from 'node:worker_threads';
import { describe, expect, it } from 'vitest';
import { freeNow } from './freeBuffers.ts';

describe('freeNow', () => {
  it('frees each distinct buffer once and leaves shared, detached and JS-array data alone', () => {
    const own = new Float32Array(1024);
    const whole = new ArrayBuffer(4096);
    const views = [new Uint8Array(whole, 0, 16), new Uint8Array(whole, 16, 16)];
    const shared = new Float32Array(new SharedArrayBuffer(64));
    const moved = new Float32Array(8);
    structuredClone(moved.buffer, { transfer: [moved.buffer] });
    const freed = freeNow([
      { data: own },
      ...views.map((data) => ({ data })),
      { data: shared },
      { data: moved },
      { data: ['a'] },
    ]);
    expect(freed).toBe(2);
    expect(own.buffer.byteLength).toBe(0);
    expect(whole.byteLength).toBe(0);
    expect(shared.buffer.byteLength).toBe(64);
  });

  it('frees the others and keeps a buffer marked untransferable', () => {
    const pinned = new ArrayBuffer(32);
    markAsUntransferable(pinned);
    const a = new Float32Array(16);
    const b = new Int32Array(16);
    expect(freeNow([{ data: a }, { data: new Uint8Array(pinned) }, { data: b }])).toBe(2);
    expect(a.buffer.byteLength).toBe(0);
    expect(b.buffer.byteLength).toBe(0);
    expect(pinned.byteLength).toBe(32);
  });
});
