import { describe, expect, it } from 'vitest';
import type { Tensor } from '@ensemble-studio/core';
import type { HeldStates } from '../../sequenceTensors.ts';
import { SlotStates } from './slotStates.ts';

const W = 4;
const row = (v: number): Tensor => ({ datatype: 'FP32', shape: [1, W], data: new Float32Array(W).fill(v) });
const STATE = [{ input: 'state_in', output: 'state_out', exposed: false }];

/** The accumulator's step on a batch (y = x + state), run on what `SlotStates` fed it: one instance's worker. */
function step(slots: SlotStates, held: HeldStates, xs: number[]): Record<string, Tensor> {
  const state = slots.feeds(held).state_in!;
  expect(state.shape).toEqual([xs.length, W]);
  const y = new Float32Array(xs.length * W).map((_, i) => xs[Math.floor(i / W)]! + (state.data as Float32Array)[i]!);
  return slots.keep(held, {
    y: { datatype: 'FP32', shape: [xs.length, W], data: y },
    state_out: { datatype: 'FP32', shape: [xs.length, W], data: y.slice() },
  });
}

const held = (slots: number[], reset: number[] = [], release: number[] = []): HeldStates => ({
  slots,
  rows: slots.map(() => 1),
  reset,
  release,
  ...(reset.length > 0 ? { init: { state_in: row(0) } } : {}),
});
const firsts = (t: Tensor) => Array.from({ length: t.shape[0]! }, (_, k) => (t.data as Float32Array)[k * W]);

describe('SlotStates', () => {
  it('keeps each slot its own state across batches made of different sequences, in any order', () => {
    const s = new SlotStates(STATE);
    expect(firsts(step(s, held([1, 2], [0, 1]), [1, 10]).y!)).toEqual([1, 10]);
    expect(firsts(step(s, held([2]), [5]).y!)).toEqual([15]);
    expect(firsts(step(s, held([3, 1, 2], [0]), [100, 2, 7]).y!)).toEqual([100, 3, 22]);
    expect(s.size).toBe(3);
  });

  it('starts a reset row from the initial state while the rest of its batch keeps theirs', () => {
    const s = new SlotStates(STATE);
    step(s, held([1, 2], [0, 1]), [4, 5]);
    expect(firsts(step(s, held([1, 2], [1]), [1, 1]).y!)).toEqual([5, 1]);
  });

  it('drops released slots before the batch, and refuses a slot it does not hold', () => {
    const s = new SlotStates(STATE);
    step(s, held([1, 2], [0, 1]), [4, 5]);
    step(s, held([2], [], [1]), [1]);
    expect(s.size).toBe(1);
    expect(() => s.feeds(held([1]))).toThrow(/holds no state 'state_in' for sequence slot 1/);
  });

  it('leaves every state as it was when a batch fails between feeds and keep', () => {
    const s = new SlotStates(STATE);
    step(s, held([1], [0]), [3]);
    s.feeds(held([1])); // the session failed: keep never ran
    expect(firsts(step(s, held([1]), [1]).y!)).toEqual([4]);
  });

  it('returns a state output only when the config lists it, keeping its own copy of what leaves', () => {
    const hidden = new SlotStates(STATE);
    expect(Object.keys(step(hidden, held([1], [0]), [1])).sort()).toEqual(['y']);
    const shown = new SlotStates([{ ...STATE[0]!, exposed: true }]);
    const out = step(shown, held([1, 2], [0, 1]), [1, 2]);
    expect(Object.keys(out).sort()).toEqual(['state_out', 'y']);
    (out.state_out!.data as Float32Array).fill(-1000); // as if its buffer had moved to the main thread
    expect(firsts(step(shown, held([1, 2]), [1, 1]).y!)).toEqual([2, 3]);
  });

  it("refuses to batch sequences whose states' shapes differ", () => {
    const s = new SlotStates(STATE);
    step(s, held([1], [0]), [1]);
    const wide: HeldStates = {
      ...held([2, 1], [0]),
      init: { state_in: { datatype: 'FP32', shape: [1, W + 1], data: new Float32Array(W + 1) } },
    };
    expect(() => s.feeds(wide)).toThrow(/state shapes differ/);
  });
});
