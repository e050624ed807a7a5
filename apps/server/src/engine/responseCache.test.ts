import { describe, expect, it } from 'vitest';
import type { Tensor } from '@ensemble-studio/core';
import { ModelStats } from './Metrics.ts';
import { ModelCache } from './modelCache.ts';
import { ResponseCache } from './responseCache.ts';

const f32 = (values: number[], shape = [values.length]): Tensor => ({
  datatype: 'FP32',
  shape,
  data: Float32Array.from(values),
});
const out = (bytes: number): Record<string, Tensor> => ({
  y: { datatype: 'UINT8', shape: [bytes], data: new Uint8Array(bytes) },
});

describe('ResponseCache.keyOf', () => {
  const key = (model: string, version: number, inputs: Record<string, Tensor>) =>
    ResponseCache.keyOf(model, version, inputs);

  it('is the same for the same model, version and inputs, whatever order the inputs come in', () => {
    const a = key('m', 1, { x: f32([1, 2]), z: f32([3]) });
    expect(key('m', 1, { z: f32([3]), x: f32([1, 2]) })).toBe(a);
  });

  it("differs by the model's name and version, and by each input's name, data type, shape and bytes", () => {
    const base = key('m', 1, { x: f32([1, 2]) });
    expect(key('n', 1, { x: f32([1, 2]) })).not.toBe(base);
    expect(key('m', 2, { x: f32([1, 2]) })).not.toBe(base);
    expect(key('m', 1, { w: f32([1, 2]) })).not.toBe(base);
    expect(key('m', 1, { x: f32([1, 2], [2, 1]) })).not.toBe(base); // same bytes, another shape: Triton's key would match
    expect(
      key('m', 1, {
        x: { datatype: 'INT32', shape: [2], data: new Int32Array((f32([1, 2]).data as Float32Array).buffer) },
      }),
    ).not.toBe(base);
    expect(key('m', 1, { x: f32([1, 3]) })).not.toBe(base);
  });

  it('reads only the bytes a typed array views, and BYTES elements with their lengths', () => {
    const whole = new Float32Array([9, 1, 2, 9]);
    expect(key('m', 1, { x: { datatype: 'FP32', shape: [2], data: whole.subarray(1, 3) } })).toBe(
      key('m', 1, { x: f32([1, 2]) }),
    );
    const s = (data: string[]): Record<string, Tensor> => ({ x: { datatype: 'BYTES', shape: [data.length], data } });
    expect(key('m', 1, s(['ab', 'c']))).not.toBe(key('m', 1, s(['a', 'bc'])));
  });
});

describe('ResponseCache', () => {
  it('gives back a copy of what it keeps: neither side can change the other', () => {
    const c = new ResponseCache(1024);
    const y = out(4);
    c.insert('k', y);
    (y.y!.data as Uint8Array)[0] = 7;
    const got = c.lookup('k')!;
    expect([...(got.y!.data as Uint8Array)]).toEqual([0, 0, 0, 0]);
    (got.y!.data as Uint8Array)[1] = 7;
    expect([...(c.lookup('k')!.y!.data as Uint8Array)]).toEqual([0, 0, 0, 0]);
  });

  it('evicts the least recently used entries when a new one needs their room', () => {
    const c = new ResponseCache(300);
    c.insert('a', out(100));
    c.insert('b', out(100));
    c.insert('c', out(100));
    c.lookup('a'); // now b is the least recently used
    expect(c.insert('d', out(150))).toBe('inserted');
    expect(c.lookup('b')).toBeUndefined();
    expect(c.lookup('c')).toBeUndefined();
    expect(c.lookup('a')).toBeDefined();
    expect(c.stats).toEqual({ entries: 2, bytes: 250, sizeBytes: 300, evictions: 2 });
  });

  it('refuses an entry larger than the whole cache, and keeps the first of two under one key', () => {
    const c = new ResponseCache(100);
    expect(c.insert('big', out(101))).toBe('too-large');
    expect(c.insert('k', out(10))).toBe('inserted');
    expect(c.insert('k', out(20))).toBe('exists');
    expect((c.lookup('k')!.y!.data as Uint8Array).length).toBe(10);
    expect(c.stats.bytes).toBe(10);
  });

  it("counts a BYTES element's UTF-8 bytes and its 4-byte length", () => {
    const c = new ResponseCache(1000);
    c.insert('s', { t: { datatype: 'BYTES', shape: [2], data: ['é', 'ab'] } });
    expect(c.stats.bytes).toBe(4 + 2 + 4 + 2);
    expect(c.lookup('s')!.t!.data).toEqual(['é', 'ab']);
  });
});

describe("ModelCache (a model's use of the cache)", () => {
  const result = (v: number) => ({ outputs: { y: f32([v]) }, queueMs: 1, computeMs: 2, batchSize: 1, instance: 'm_0' });

  it('counts a miss when it stores, and answers the same inputs from the cache as a hit with no execution', () => {
    const stats = new ModelStats();
    const mc = new ModelCache(new ResponseCache(1 << 10), 'm', 1, stats);
    expect(stats.snapshot(0).cache).toEqual({ hits: 0, hitNs: 0, misses: 0, missNs: 0 });
    const first = mc.answer({ x: f32([1]) }, 1);
    expect(first.hit).toBeUndefined();
    if (!first.hit) first.store(result(5));
    const again = mc.answer({ x: f32([1]) }, 1);
    expect(again.hit?.outputs.y!.data).toEqual(Float32Array.of(5));
    expect(again.hit).toMatchObject({ queueMs: 0, computeMs: 0, batchSize: 1 });
    const s = stats.snapshot(0);
    expect(s.cache).toMatchObject({ hits: 1, misses: 1 });
    expect(s.requestSuccess).toBe(1); // the hit; the miss's success is the runtime's, as for any request
    expect(s.execCount).toBe(0);
  });

  it("does not count a miss whose result another request stored first (Triton's ALREADY_EXISTS)", () => {
    const stats = new ModelStats();
    const mc = new ModelCache(new ResponseCache(1 << 10), 'm', 1, stats);
    const [a, b] = [mc.answer({ x: f32([1]) }, 1), mc.answer({ x: f32([1]) }, 1)];
    if (!a.hit) a.store(result(1));
    if (!b.hit) b.store(result(1));
    expect(stats.snapshot(0).cache).toMatchObject({ hits: 0, misses: 1 });
  });

  it("a model loaded again does not get its earlier runtime's responses", () => {
    const cache = new ResponseCache(1 << 10);
    const before = new ModelCache(cache, 'm', 1, new ModelStats());
    const a = before.answer({ x: f32([1]) }, 1);
    if (!a.hit) a.store(result(1));
    expect(before.answer({ x: f32([1]) }, 1).hit).toBeDefined();
    expect(new ModelCache(cache, 'm', 1, new ModelStats()).answer({ x: f32([1]) }, 1).hit).toBeUndefined();
  });
});
