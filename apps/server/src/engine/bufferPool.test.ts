import { describe, expect, it } from 'vitest';
import { BufferPool } from './bufferPool.ts';

describe('BufferPool', () => {
  it('gives back a buffer of the length asked for, the same one it was given', () => {
    const pool = new BufferPool(1024, 2);
    const b = new ArrayBuffer(100);
    pool.give(b);
    expect(pool.take(50)).not.toBe(b);
    expect(pool.take(100)).toBe(b);
    expect(pool.take(100)).not.toBe(b);
    expect(pool.heldBytes).toBe(0);
  });

  it('keeps at most `perLength` of one length and stays within its byte budget, dropping the oldest length first', () => {
    const pool = new BufferPool(300, 2);
    const [a, b, c] = [new ArrayBuffer(100), new ArrayBuffer(100), new ArrayBuffer(100)];
    pool.give(a);
    pool.give(b);
    pool.give(c);
    expect(pool.heldBytes).toBe(200);
    const big = new ArrayBuffer(150);
    pool.give(big);
    expect(pool.heldBytes).toBe(150);
    expect(pool.take(100)).not.toBe(a);
    expect(pool.take(150)).toBe(big);
    pool.give(new ArrayBuffer(301));
    pool.give(new ArrayBuffer(0));
    expect(pool.heldBytes).toBe(0);
  });

  it('never hands out a detached buffer', () => {
    const pool = new BufferPool(1024, 2);
    const b = new ArrayBuffer(64);
    structuredClone(b, { transfer: [b] });
    pool.give(b);
    expect(pool.take(64).byteLength).toBe(64);
    expect(pool.heldBytes).toBe(0);
  });
});
