import { describe, expect, it } from 'vitest';
import { eachAtMost } from './eachAtMost.ts';

/** Runs eachAtMost over `n` items whose calls take a few ms each; returns the most calls seen unfinished at once. */
async function peakConcurrency(n: number, concurrency: number, fails = (_i: number) => false) {
  let running = 0;
  let peak = 0;
  const done: number[] = [];
  await eachAtMost(
    Array.from({ length: n }, (_, i) => i),
    concurrency,
    async (i) => {
      peak = Math.max(peak, ++running);
      await new Promise((r) => setTimeout(r, 2 + (i % 3)));
      running--;
      done.push(i);
      if (fails(i)) throw new Error(`item ${i}`);
    },
  );
  return { peak, done };
}

describe('eachAtMost', () => {
  it('never has more than `concurrency` calls unfinished, and calls every item once', async () => {
    const one = await peakConcurrency(7, 1);
    expect(one.peak).toBe(1);
    expect(one.done).toEqual([0, 1, 2, 3, 4, 5, 6]);
    const two = await peakConcurrency(7, 2);
    expect(two.peak).toBe(2);
    expect([...two.done].sort()).toEqual([0, 1, 2, 3, 4, 5, 6]);
  });

  it('runs every item at once when concurrency covers them, and at least one at a time', async () => {
    expect((await peakConcurrency(5, 99)).peak).toBe(5);
    expect((await peakConcurrency(3, 0)).peak).toBe(1);
    await expect(eachAtMost([], 2, () => Promise.reject(new Error('never called')))).resolves.toBeUndefined();
  });

  it('goes on past a call that fails', async () => {
    const r = await peakConcurrency(4, 1, (i) => i === 1);
    expect(r.done).toEqual([0, 1, 2, 3]);
  });
});
