import { describe, expect, it } from 'vitest';
import { Batcher, type Schedule } from './Batcher.ts';

/** A manual timer: tests fire pending timers by hand. */
function manualTimer() {
  const timers: { fn: () => void; ms: number; live: boolean }[] = [];
  const schedule: Schedule = (fn, ms) => {
    const t = { fn, ms, live: true };
    timers.push(t);
    return () => {
      t.live = false;
    };
  };
  const fire = () => {
    for (const t of timers.splice(0)) if (t.live) t.fn();
  };
  const live = () => timers.filter((t) => t.live).length;
  return { schedule, fire, live };
}

const tick = () => new Promise<void>((r) => setImmediate(r));

function recorder(opts: { fail?: boolean } = {}) {
  const batches: number[][] = [];
  const dispatch = async (items: number[]) => {
    batches.push([...items]);
    if (opts.fail) throw new Error('model exploded');
    return items.map((x) => x * 10);
  };
  return { batches, dispatch };
}

describe('Batcher', () => {
  it('dispatches at once when the queue reaches the preferred size', async () => {
    const t = manualTimer();
    const r = recorder();
    const b = new Batcher<number, number>({
      maxBatchSize: 8,
      preferredSizes: [4],
      maxQueueDelayMs: 100,
      dispatch: r.dispatch,
      schedule: t.schedule,
    });
    const results = Promise.all([1, 2, 3, 4].map((x) => b.enqueue(x)));
    expect(await results).toEqual([10, 20, 30, 40]);
    expect(r.batches).toEqual([[1, 2, 3, 4]]);
  });

  it('waits for the queue delay, then sends what it has', async () => {
    const t = manualTimer();
    const r = recorder();
    const b = new Batcher<number, number>({
      maxBatchSize: 8,
      maxQueueDelayMs: 5,
      dispatch: r.dispatch,
      schedule: t.schedule,
    });
    const p1 = b.enqueue(1);
    const p2 = b.enqueue(2);
    await tick();
    expect(r.batches).toEqual([]);
    expect(t.live()).toBe(1);
    t.fire();
    expect(await Promise.all([p1, p2])).toEqual([10, 20]);
    expect(r.batches).toEqual([[1, 2]]);
  });

  it('splits a long queue at max batch size and counts rows per item', async () => {
    const t = manualTimer();
    const r = recorder();
    const b = new Batcher<number, number>({
      maxBatchSize: 4,
      maxQueueDelayMs: 5,
      sizeOf: (x) => x,
      dispatch: r.dispatch,
      schedule: t.schedule,
    });
    const all = Promise.all([2, 1, 1, 3].map((x) => b.enqueue(x)));
    await tick();
    expect(r.batches).toEqual([[2, 1, 1]]); // 4 rows: full
    t.fire();
    expect(await all).toEqual([20, 10, 10, 30]);
    expect(r.batches).toEqual([[2, 1, 1], [3]]);
  });

  it('ends a batch at the first item with another key, as Triton ends one at a request of other shapes', async () => {
    const r = recorder();
    const b = new Batcher<number, number>({
      maxBatchSize: 8,
      maxQueueDelayMs: 0,
      keyOf: (x) => String(x % 2),
      dispatch: r.dispatch,
    });
    await Promise.all([1, 3, 2, 4, 5].map((x) => b.enqueue(x)));
    expect(r.batches).toEqual([[1, 3], [2, 4], [5]]);
  });

  it('sends a batch that the next item cannot join at once, without waiting for the delay', async () => {
    const t = manualTimer();
    const r = recorder();
    const b = new Batcher<number, number>({
      maxBatchSize: 8,
      maxQueueDelayMs: 100,
      keyOf: (x) => String(x % 2),
      dispatch: r.dispatch,
      schedule: t.schedule,
    });
    const all = Promise.all([1, 3, 2].map((x) => b.enqueue(x)));
    await tick();
    expect(r.batches).toEqual([[1, 3]]); // 2 has other shapes: [1, 3] cannot grow
    t.fire();
    await all;
    expect(r.batches).toEqual([[1, 3], [2]]);
  });

  it('sends the largest preferred size the queue makes at once, the rest waits', async () => {
    const t = manualTimer();
    const r = recorder();
    const b = new Batcher<number, number>({
      maxBatchSize: 8,
      preferredSizes: [2, 4],
      maxQueueDelayMs: 100,
      dispatch: r.dispatch,
      schedule: t.schedule,
    });
    const all = Promise.all([1, 2, 3].map((x) => b.enqueue(x)));
    await tick();
    expect(r.batches).toEqual([[1, 2]]);
    t.fire();
    await all;
    expect(r.batches).toEqual([[1, 2], [3]]);
  });

  it('sends what fits below the largest preferred size at once when the next item would pass it', async () => {
    const t = manualTimer();
    const r = recorder();
    const b = new Batcher<number, number>({
      maxBatchSize: 8,
      preferredSizes: [4],
      maxQueueDelayMs: 100,
      sizeOf: (x) => x,
      dispatch: r.dispatch,
      schedule: t.schedule,
    });
    const all = Promise.all([3, 3].map((x) => b.enqueue(x)));
    await tick();
    expect(r.batches).toEqual([[3]]); // 3 + 3 passes 4: Triton sends the 3 rows it had
    t.fire();
    await all;
    expect(r.batches).toEqual([[3], [3]]);
  });

  it("counts the queue delay from the oldest waiting item's arrival, not from the last batch", async () => {
    const timers: number[] = [];
    const schedule: Schedule = (fn, ms) => {
      timers.push(ms);
      const h = setTimeout(fn, ms);
      return () => clearTimeout(h);
    };
    let release: () => void = () => {};
    const held = new Promise<void>((r) => (release = r));
    const batches: number[][] = [];
    const b = new Batcher<number, number>({
      maxBatchSize: 2,
      maxQueueDelayMs: 30,
      capacity: 1,
      schedule,
      dispatch: async (xs) => {
        batches.push([...xs]);
        if (xs[0] === 1) await held;
        return xs;
      },
    });
    // [1, 2] is full: out at once, holding the only instance while 3, 4 and 5 wait past the delay.
    const all = Promise.all([1, 2, 3, 4, 5].map((x) => b.enqueue(x)));
    await new Promise((r) => setTimeout(r, 50));
    release();
    await all;
    expect(batches).toEqual([[1, 2], [3, 4], [5]]);
    // After [3, 4], 5 had waited 50 ms of its 30: its timer is due at once (it was given 30 more before).
    expect(timers).toHaveLength(2);
    expect(timers[0]).toBeGreaterThan(25);
    expect(timers[1]).toBe(0);
  });

  it('batches requests that arrive while every instance is busy', async () => {
    const r = recorder();
    const b = new Batcher<number, number>({ maxBatchSize: 8, maxQueueDelayMs: 0, capacity: 1, dispatch: r.dispatch });
    const first = b.enqueue(1);
    await tick();
    const rest = [2, 3, 4].map((x) => b.enqueue(x));
    await Promise.all([first, ...rest]);
    expect(r.batches).toEqual([[1], [2, 3, 4]]);
  });

  it('rejects every waiter when the batch fails', async () => {
    const r = recorder({ fail: true });
    const b = new Batcher<number, number>({ maxBatchSize: 8, maxQueueDelayMs: 0, dispatch: r.dispatch });
    const results = await Promise.allSettled([1, 2, 3].map((x) => b.enqueue(x)));
    expect(results.map((x) => x.status)).toEqual(['rejected', 'rejected', 'rejected']);
    expect(results.map((x) => (x as PromiseRejectedResult).reason.message)).toEqual([
      'model exploded',
      'model exploded',
      'model exploded',
    ]);
  });

  it('rejects all when a batch returns the wrong number of results', async () => {
    const b = new Batcher<number, number>({ maxBatchSize: 8, maxQueueDelayMs: 0, dispatch: async () => [1] });
    const results = await Promise.allSettled([1, 2].map((x) => b.enqueue(x)));
    expect(results.every((x) => x.status === 'rejected')).toBe(true);
  });

  it('drops an aborted item from the queue', async () => {
    const t = manualTimer();
    const r = recorder();
    const b = new Batcher<number, number>({
      maxBatchSize: 8,
      maxQueueDelayMs: 5,
      dispatch: r.dispatch,
      schedule: t.schedule,
    });
    const ac = new AbortController();
    const p1 = b.enqueue(1, ac.signal);
    const p2 = b.enqueue(2);
    ac.abort();
    await expect(p1).rejects.toMatchObject({ code: 'cancelled' });
    t.fire();
    expect(await p2).toBe(20);
    expect(r.batches).toEqual([[2]]);
  });

  it('drops an aborted item that waited through an earlier batch (the queue it joined was replaced since)', async () => {
    let release!: () => void;
    const batches: number[][] = [];
    const b = new Batcher<number, number>({
      maxBatchSize: 1,
      maxQueueDelayMs: 0,
      capacity: 1,
      dispatch: async (items) => {
        batches.push([...items]);
        if (items[0] === 1) await new Promise<void>((r) => (release = r));
        return items.map((x) => x * 10);
      },
    });
    const ac = new AbortController();
    const p1 = b.enqueue(1);
    const p2 = b.enqueue(2, ac.signal);
    const p3 = b.enqueue(3);
    await tick(); // 1 goes out alone; 2 and 3 wait for the busy instance
    ac.abort();
    await expect(p2).rejects.toMatchObject({ code: 'cancelled' });
    release();
    expect([await p1, await p3]).toEqual([10, 30]);
    expect(batches).toEqual([[1], [3]]);
  });

  it("gather 'turn': the callers a batch answered send their next requests as one batch, not the first alone", async () => {
    for (const gather of ['microtask', 'turn'] as const) {
      const r = recorder();
      const b = new Batcher<number, number>({
        maxBatchSize: 8,
        maxQueueDelayMs: 0,
        capacity: 1,
        dispatch: r.dispatch,
        gather,
      });
      // Four closed-loop callers: each sends its next request some promise hops after its last one returned
      // (an engine run resolving through its scheduler), the later ones a hop later than the one before.
      await Promise.all(
        [1, 2, 3, 4].map(async (x) => {
          for (let k = 0; k < 3; k++) {
            await b.enqueue(x + 10 * k);
            for (let hop = 0; hop < 4 * x; hop++) await Promise.resolve();
          }
        }),
      );
      const sizes = r.batches.map((batch) => batch.length);
      if (gather === 'turn') expect(sizes).toEqual([4, 4, 4]);
      else expect(sizes.length).toBeGreaterThan(3); // the first caller back goes alone to the idle instance
    }
  });

  it('a finished batch frees its instance for what waits before its callers hear back', async () => {
    for (const gather of ['microtask', 'turn'] as const) {
      const order: string[] = [];
      let release = () => {};
      const b = new Batcher<number, number>({
        maxBatchSize: 8,
        maxQueueDelayMs: 0,
        capacity: 1,
        gather,
        dispatch: async (items) => {
          order.push(`dispatched ${items.join(',')}`);
          if (items[0] === 1) await new Promise<void>((r) => (release = r));
          return items.map((x) => x * 10);
        },
      });
      const p1 = b.enqueue(1).then((x) => order.push(`answered ${x}`));
      await tick(); // 1 runs alone; 2 and 3 wait for the busy instance
      const rest = [b.enqueue(2), b.enqueue(3)];
      await tick();
      release();
      await Promise.all([p1, ...rest]);
      expect(order).toEqual(['dispatched 1', 'dispatched 2,3', 'answered 10']);
    }
  });

  it("gather 'turn': requests made in separate ticks of one event-loop turn share a batch", async () => {
    const r = recorder();
    const b = new Batcher<number, number>({
      maxBatchSize: 8,
      maxQueueDelayMs: 0,
      capacity: 1,
      dispatch: r.dispatch,
      gather: 'turn',
    });
    const out: Promise<number>[] = [];
    // Two immediates queued together run in one check phase, with microtasks run between them; the flush the
    // first one queues goes behind the second. (Two timers of 1 ms are not enough: when the clock ticks between
    // arming them, they fall due in different turns.)
    await new Promise<void>((resolve) => {
      setImmediate(() => out.push(b.enqueue(1)));
      setImmediate(() => {
        out.push(b.enqueue(2));
        resolve();
      });
    });
    expect(await Promise.all(out)).toEqual([10, 20]);
    expect(r.batches).toEqual([[1, 2]]);
  });
});
