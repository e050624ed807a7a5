import { describe, expect, it } from 'vitest';
import type { ModelConfig } from '@ensemble-studio/core';
import { Batcher, type BatcherOptions, type QueuePolicy } from './Batcher.ts';
import { priorityLevels, queuePolicy } from './dynamicBatching.ts';

// Triton's queue policy on the batcher: a bounded queue, and items that waited past their timeout refused or served
// after the others. One item is held in the "instance" (capacity 1) so that the rest queue behind it.

/** A dispatch whose batches finish when the test releases them. */
function heldDispatch() {
  const batches: number[][] = [];
  const releases: (() => void)[] = [];
  const dispatch = (items: number[]) =>
    new Promise<number[]>((resolve) => {
      batches.push([...items]);
      releases.push(() => resolve(items.map((x) => x * 10)));
    });
  const releaseNext = async () => {
    releases.shift()!();
    await new Promise<void>((r) => setImmediate(r));
  };
  return { batches, dispatch, releaseNext };
}

/** A test policy: nothing bounded unless `policy` says, refusals named "<why> <item>", the clock the test's. */
function testPolicy(policy: Partial<QueuePolicy<number>>, clock: { now: number }): QueuePolicy<number> {
  return {
    maxQueueSize: 0,
    timeoutMs: () => 0,
    action: 'reject',
    refusal: (why, item) => new Error(`${why} ${item}`),
    now: () => clock.now,
    ...policy,
  };
}

/** A batcher on one held "instance" (capacity 1), no queue delay, with `options`' policy or levels. */
function heldBatcher(maxBatchSize: number, options: Partial<BatcherOptions<number, number>>) {
  const d = heldDispatch();
  const b = new Batcher<number, number>({
    maxBatchSize,
    maxQueueDelayMs: 0,
    capacity: 1,
    dispatch: d.dispatch,
    ...options,
  });
  return { b, ...d };
}

function batcher(policy: Partial<QueuePolicy<number>>, clock: { now: number }, maxBatchSize = 8) {
  return heldBatcher(maxBatchSize, { policy: testPolicy(policy, clock) });
}

const settled = (p: Promise<number>) =>
  p.then(
    (v) => v,
    (e: Error) => e.message,
  );

describe('Batcher queue policy', () => {
  it('refuses an item while the queue holds max_queue_size, and takes one again once it has room', async () => {
    const clock = { now: 0 };
    const { b, batches, releaseNext } = batcher({ maxQueueSize: 2 }, clock);
    const first = settled(b.enqueue(1));
    await new Promise<void>((r) => setImmediate(r));
    const queued = [2, 3].map((x) => settled(b.enqueue(x)));
    expect(await settled(b.enqueue(4))).toBe('full 4');
    await releaseNext();
    expect(batches).toEqual([[1], [2, 3]]);
    const fifth = settled(b.enqueue(5));
    await releaseNext();
    expect(batches).toEqual([[1], [2, 3], [5]]);
    await releaseNext();
    expect(await Promise.all([first, ...queued, fifth])).toEqual([10, 20, 30, 50]);
  });

  it('REJECT: an item that waited past its timeout is refused when a batch is formed, the others served', async () => {
    const clock = { now: 0 };
    const { b, batches, releaseNext } = batcher({ timeoutMs: (x) => (x === 2 ? 5 : 0) }, clock);
    const first = settled(b.enqueue(1));
    await new Promise<void>((r) => setImmediate(r));
    const late = settled(b.enqueue(2));
    const patient = settled(b.enqueue(3));
    clock.now = 10;
    await releaseNext();
    expect(await late).toBe('timeout 2');
    expect(batches).toEqual([[1], [3]]);
    await releaseNext();
    expect(await Promise.all([first, patient])).toEqual([10, 30]);
  });

  it('DELAY: an expired item waits behind every unexpired one, then runs', async () => {
    const clock = { now: 0 };
    const { b, batches, releaseNext } = batcher({ action: 'delay', timeoutMs: (x) => (x === 2 ? 5 : 0) }, clock, 1);
    const all = [settled(b.enqueue(1))];
    await new Promise<void>((r) => setImmediate(r));
    all.push(settled(b.enqueue(2)));
    clock.now = 10;
    all.push(settled(b.enqueue(3)));
    await releaseNext(); // [1] done: 2 has expired and waits aside, 3 goes
    all.push(settled(b.enqueue(4)));
    await releaseNext(); // [3] done: 4 came after 2 but is unexpired, so it goes first
    await releaseNext(); // [4] done: only the delayed 2 is left
    await releaseNext();
    expect(batches).toEqual([[1], [3], [4], [2]]);
    expect(await Promise.all(all)).toEqual([10, 20, 30, 40]);
  });

  it('DELAY: a batch with room takes the delayed items after the unexpired ones, as Triton forms it', async () => {
    const clock = { now: 0 };
    const { b, batches, releaseNext } = batcher({ action: 'delay', timeoutMs: (x) => (x === 2 ? 5 : 0) }, clock);
    const all = [settled(b.enqueue(1))];
    await new Promise<void>((r) => setImmediate(r));
    all.push(settled(b.enqueue(2)));
    clock.now = 10;
    all.push(settled(b.enqueue(3)));
    await releaseNext();
    await releaseNext();
    expect(batches).toEqual([[1], [3, 2]]);
    expect(await Promise.all(all)).toEqual([10, 20, 30]);
  });

  it('counts delayed items in the queue size, and an aborted delayed item leaves it', async () => {
    const clock = { now: 0 };
    const { b, releaseNext } = batcher({ action: 'delay', maxQueueSize: 2, timeoutMs: () => 5 }, clock);
    const first = settled(b.enqueue(1));
    await new Promise<void>((r) => setImmediate(r));
    const abort = new AbortController();
    const delayed = settled(b.enqueue(2, abort.signal));
    clock.now = 10;
    const second = settled(b.enqueue(3));
    expect(b.pending).toBe(2);
    expect(await settled(b.enqueue(4))).toBe('full 4');
    abort.abort();
    expect(await delayed).toMatch(/cancel/i);
    expect(b.pending).toBe(1);
    await releaseNext();
    await releaseNext();
    expect(await Promise.all([first, second])).toEqual([10, 30]);
  });
});

describe('Batcher priority levels', () => {
  /** Items are "level * 100 + n": level 1 is served first; each level's policy from `policies` (none: unbounded). */
  function leveled(policies: Record<number, Partial<QueuePolicy<number>>>, clock: { now: number }, maxBatchSize = 8) {
    return heldBatcher(maxBatchSize, {
      priorityOf: (x) => Math.floor(x / 100),
      policyOf: (level) => (policies[level] ? testPolicy(policies[level], clock) : undefined),
    });
  }

  it('forms each batch from the highest level first, arrival order within a level', async () => {
    const { b, batches, releaseNext } = leveled({}, { now: 0 }, 2);
    const all = [settled(b.enqueue(101))];
    await new Promise<void>((r) => setImmediate(r));
    for (const x of [301, 201, 102, 202, 103]) all.push(settled(b.enqueue(x)));
    expect(b.pending).toBe(5);
    for (let i = 0; i < 4; i++) await releaseNext();
    expect(batches).toEqual([[101], [102, 103], [201, 202], [301]]);
    expect(await Promise.all(all)).toEqual([1010, 3010, 2010, 1020, 2020, 1030]);
    expect(b.pending).toBe(0);
  });

  it("bounds each level by its own max_queue_size, and fills a batch's room from the next level", async () => {
    const { b, batches, releaseNext } = leveled({ 1: { maxQueueSize: 1 } }, { now: 0 });
    const all = [settled(b.enqueue(201))];
    await new Promise<void>((r) => setImmediate(r));
    all.push(settled(b.enqueue(101)));
    expect(await settled(b.enqueue(102))).toBe('full 102');
    all.push(settled(b.enqueue(202)), settled(b.enqueue(203)));
    await releaseNext();
    await releaseNext();
    expect(batches).toEqual([[201], [101, 202, 203]]);
    expect(await Promise.all(all)).toEqual([2010, 1010, 2020, 2030]);
  });

  it("applies each level's timeout and action: a level's delayed items still go before the next level's", async () => {
    const clock = { now: 0 };
    const { b, batches, releaseNext } = leveled(
      { 1: { action: 'delay', timeoutMs: (x) => (x === 101 ? 5 : 0) }, 2: { timeoutMs: () => 5 } },
      clock,
      1,
    );
    const all = [settled(b.enqueue(301))];
    await new Promise<void>((r) => setImmediate(r));
    all.push(settled(b.enqueue(101)), settled(b.enqueue(201)), settled(b.enqueue(302)));
    clock.now = 10;
    all.push(settled(b.enqueue(102)));
    for (let i = 0; i < 4; i++) await releaseNext();
    // 201 expired under REJECT; 101 expired under DELAY, so it goes after 102 but before level 3.
    expect(batches).toEqual([[301], [102], [101], [302]]);
    expect(await Promise.all(all)).toEqual([3010, 1010, 'timeout 201', 3020, 1020]);
  });

  it('drops an aborted item from its level, and a level once empty', async () => {
    const { b, batches, releaseNext } = leveled({}, { now: 0 });
    const first = settled(b.enqueue(301));
    await new Promise<void>((r) => setImmediate(r));
    const abort = new AbortController();
    const gone = settled(b.enqueue(101, abort.signal));
    const kept = settled(b.enqueue(201));
    abort.abort();
    expect(await gone).toMatch(/cancel/i);
    expect(b.pending).toBe(1);
    await releaseNext();
    await releaseNext();
    expect(batches).toEqual([[301], [201]]);
    expect(await Promise.all([first, kept])).toEqual([3010, 2010]);
  });
});

describe('queuePolicy (a config to the batcher policy)', () => {
  const cfg = (policy?: Record<string, unknown>) =>
    ({ name: 'm', max_batch_size: 4, dynamic_batching: policy ? { default_queue_policy: policy } : {} }) as ModelConfig;
  const item = (queueTimeoutUs?: number) => ({ req: { inputs: {}, ...(queueTimeoutUs ? { queueTimeoutUs } : {}) } });

  it('is none without a policy, or with one that bounds nothing', () => {
    expect(queuePolicy(cfg())).toBeUndefined();
    expect(queuePolicy(cfg({ timeout_action: 'DELAY' }))).toBeUndefined();
  });

  it("reads Triton's fields (a uint64 printed as a string too), and a request's timeout only when allowed and shorter", () => {
    const p = queuePolicy(
      cfg({ max_queue_size: 3, default_timeout_microseconds: '2000000', timeout_action: 'DELAY' }),
    )!;
    expect([p.maxQueueSize, p.action, p.timeoutMs(item()), p.timeoutMs(item(1000))]).toEqual([3, 'delay', 2000, 2000]);
    const o = queuePolicy(cfg({ default_timeout_microseconds: 2_000_000, allow_timeout_override: true }))!;
    expect([o.action, o.timeoutMs(item(1000)), o.timeoutMs(item(5_000_000)), o.timeoutMs(item())]).toEqual([
      'reject',
      1,
      2000,
      2000,
    ]);
    expect(o.refusal('timeout', item()).message).toBe('Request timeout expired');
    expect(o.refusal('full', item()).message).toBe('Exceeds maximum queue size');
  });

  it("reads priority levels as Triton's SetPriority: 0 or above the levels is the default level; each level's policy", () => {
    const levels = priorityLevels({
      name: 'm',
      max_batch_size: 4,
      dynamic_batching: {
        priority_levels: '3',
        default_priority_level: 2,
        default_queue_policy: { max_queue_size: 5 },
        priority_queue_policy: { '1': { max_queue_size: 1 }, '3': {} },
      },
    } as unknown as ModelConfig)!;
    const at = (priority?: number) =>
      levels.of({ req: { inputs: {}, ...(priority === undefined ? {} : { priority }) } });
    expect([at(), at(0), at(1), at(3), at(4), at(2 ** 60)]).toEqual([2, 2, 1, 3, 2, 2]);
    expect([1, 2, 3].map((l) => levels.policy(l)?.maxQueueSize)).toEqual([1, 5, undefined]);
    expect(priorityLevels(cfg({ max_queue_size: 1 }))).toBeUndefined();
  });
});
