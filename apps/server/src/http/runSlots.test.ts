import { describe, expect, it } from 'vitest';
import { RunSlots } from './runSlots.ts';

describe('RunSlots', () => {
  it('hands a released slot to the runs waiting, in the order they came', async () => {
    const slots = new RunSlots({ maxConcurrentRuns: 1, maxQueuedRuns: 4 });
    const first = slots.take();
    const order: string[] = [];
    const a = slots.wait().then((release) => (order.push('a'), release));
    const b = slots.wait().then((release) => (order.push('b'), release));
    expect(slots.waitingCount).toBe(2);
    first();
    first(); // a second call releases nothing more
    const releaseA = await a;
    expect([order, slots.inFlight, slots.waitingCount]).toEqual([['a'], 1, 1]);
    releaseA();
    (await b)();
    expect([order, slots.inFlight, slots.waitingCount]).toEqual([['a', 'b'], 0, 0]);
  });

  it('refuses past maxQueuedRuns waiting, and take() refuses while runs wait', async () => {
    const slots = new RunSlots({ maxConcurrentRuns: 1, maxQueuedRuns: 1 });
    const held = slots.take();
    const waiting = slots.wait();
    await expect(slots.wait()).rejects.toMatchObject({
      status: 503,
      code: 'limit',
      message: expect.stringMatching(/maxConcurrentRuns=1, and 1 waiting \(maxQueuedRuns=1\)/),
    });
    held();
    const release = await waiting;
    expect(() => slots.take()).toThrow(/maxConcurrentRuns=1/);
    release();
    expect(slots.take()).toBeTypeOf('function');
  });

  it('drops a waiting run whose client went away', async () => {
    const slots = new RunSlots({ maxConcurrentRuns: 1, maxQueuedRuns: 4 });
    const held = slots.take();
    const gone = new AbortController();
    const waiting = slots.wait(gone.signal);
    gone.abort();
    await expect(waiting).rejects.toThrow();
    expect(slots.waitingCount).toBe(0);
    held();
    expect(slots.inFlight).toBe(0);
  });
});
