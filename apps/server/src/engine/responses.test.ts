import { describe, expect, it } from 'vitest';
import type { Tensor } from '@ensemble-studio/core';
import { OMITTED } from './omittedInputs.ts';
import { ResponseCollector } from './responses.ts';

const t = (v: number): Tensor => ({ datatype: 'FP32', shape: [1], data: Float32Array.of(v) });

describe('ResponseCollector', () => {
  it('sends an iteration once all its outputs arrived, iterations independently, in arrival order', () => {
    const sent: Record<string, Tensor>[] = [];
    const r = new ResponseCollector(2, (o) => sent.push(o));
    r.add(1, 'a', t(1));
    r.add(0, 'a', t(0));
    expect(sent).toEqual([]);
    r.add(0, 'b', t(10));
    r.add(1, 'b', t(11));
    expect(sent.map((o) => Object.keys(o).sort())).toEqual([
      ['a', 'b'],
      ['a', 'b'],
    ]);
    expect(sent.map((o) => o.b!.data[0])).toEqual([10, 11]);
  });

  it('flushes incomplete iterations in iteration order at the end, once', () => {
    const sent: Record<string, Tensor>[] = [];
    const r = new ResponseCollector(2, (o) => sent.push(o));
    r.add(3, 'a', t(3));
    r.add(2, 'b', t(2));
    r.flush();
    r.flush();
    expect(sent.map((o) => Object.keys(o))).toEqual([['b'], ['a']]);
  });

  it('counts a placeholder as arrived and leaves it out of the response it completes', () => {
    const sent: [Record<string, Tensor>, boolean][] = [];
    const r = new ResponseCollector(2, (o, final) => sent.push([o, final]));
    r.add(0, 'a', t(1));
    r.add(0, 'b', OMITTED);
    r.add(1, 'a', OMITTED);
    r.add(1, 'b', OMITTED);
    expect(sent.map(([o]) => Object.keys(o))).toEqual([['a'], []]);
    r.flush();
    expect(sent).toHaveLength(2);
  });
});
