import { describe, expect, it } from 'vitest';
import type { ModelConfig } from '@ensemble-studio/core';
import { SequenceBatcher } from './SequenceBatcher.ts';
import { syntheticConfigs } from '../testing/engineFixtures.ts';
import { directConfig, fakeAccumulator, manualClock, setupBatcher, x, y0 } from '../testing/sequenceFixtures.ts';
import { SequenceSlots } from './SequenceSlots.ts';
import { EngineError } from './errors.ts';

describe('SequenceBatcher slots and backlog', () => {
  /** direct with max_batch_size 0: one slot per instance, two instances. */
  const setup = () => setupBatcher({ ...directConfig(), max_batch_size: 0 });
  const settle = () => new Promise((r) => setImmediate(r));

  it('has max(1, max_batch_size) slots per instance under direct and max_candidate_sequences under oldest', () => {
    const make = (config: ModelConfig) =>
      new SequenceBatcher({
        model: 'acc',
        config,
        instances: 1,
        instanceName: (i) => `acc_${i}`,
        run: fakeAccumulator().run,
      }).slots;
    expect(make({ ...directConfig(), max_batch_size: 0 })).toBe(1);
    expect(make({ ...directConfig(), max_batch_size: 8 })).toBe(8);
    expect(make(syntheticConfigs().accumulator!)).toBe(64);
    const oldest = syntheticConfigs().accumulator!;
    expect(
      make({
        ...oldest,
        sequence_batching: {
          ...oldest.sequence_batching,
          oldest: { ...oldest.sequence_batching!.oldest, max_candidate_sequences: 0 },
        },
      }),
    ).toBe(Infinity);
  });

  it('backlogs a new sequence while every slot is taken, keeps its requests in order, and binds it when a slot frees', async () => {
    const { sb, events } = setup();
    await sb.infer(x(1), { id: 1, start: true, end: false });
    await sb.infer(x(1), { id: 2, start: true, end: false });
    let bound = '';
    const first = sb.infer(x(1), { id: 3, start: true, end: false }, undefined, (inst) => {
      bound = inst;
    });
    const second = sb.infer(x(2), { id: 3, start: false, end: true }); // accepted: id 3 is known, in the backlog
    await settle();
    expect(bound).toBe('');
    expect(sb.list().map((b) => [b.id, b.instance])).toEqual([
      [1, 0],
      [2, 1],
      [3, -1],
    ]);
    expect(y0(await sb.infer(x(5), { id: 2, start: false, end: true }))).toBe(6); // frees acc_1's slot
    expect(y0(await first)).toBe(1);
    expect(y0(await second)).toBe(3);
    expect(bound).toBe('acc_1');
    expect(events).toEqual(['bound 1 acc_0', 'bound 2 acc_1', 'ended 2 end', 'bound 3 acc_1', 'ended 3 end']);
  });

  it('hands a slot freed by the idle timeout to the oldest backlogged sequence', async () => {
    const { sb, clock, events } = setup();
    await sb.infer(x(1), { id: 1, start: true, end: false });
    await sb.infer(x(1), { id: 2, start: true, end: true });
    await sb.infer(x(1), { id: 2, start: true, end: false });
    const a = sb.infer(x(7), { id: 'a', start: true, end: false });
    const b = sb.infer(x(8), { id: 'b', start: true, end: false });
    await settle();
    clock.advance(2); // 1 and 2 go idle; a then b take their slots
    expect(y0(await a)).toBe(7);
    expect(y0(await b)).toBe(8);
    expect(events.filter((e) => e.startsWith('bound a') || e.startsWith('bound b'))).toEqual([
      'bound a acc_0',
      'bound b acc_1',
    ]);
  });

  it('rejects a backlogged request when its run is aborted and never runs it', async () => {
    const { sb, fake } = setup();
    await sb.infer(x(1), { id: 1, start: true, end: false });
    await sb.infer(x(1), { id: 2, start: true, end: false });
    const ac = new AbortController();
    const waiting = sb.infer(x(1), { id: 3, start: true, end: false }, ac.signal);
    ac.abort(new EngineError('timeout', 'the run took longer than its limit of 5 ms'));
    await expect(waiting).rejects.toMatchObject({ code: 'timeout' });
    sb.release(3);
    expect(sb.list().map((b) => b.id)).toEqual([1, 2]);
    sb.release(1, 'end');
    expect(y0(await sb.infer(x(4), { id: 4, start: true, end: false }))).toBe(4);
    expect(fake.calls).toHaveLength(3);
  });
});

describe('SequenceSlots', () => {
  /** Two instances of one slot each, on a manual clock, recording bound/ended events. */
  function setupSlots() {
    const clock = manualClock();
    const events: string[] = [];
    const slots = new SequenceSlots({
      model: 'acc',
      instances: 2,
      slots: 1,
      idleMs: 10,
      schedule: clock.schedule,
      now: clock.now,
      instanceName: (i) => `acc_${i}`,
      initial: () => ({}),
      onBound: (id, inst) => events.push(`bound ${id} ${inst}`),
      onEnded: (id, why) => events.push(`ended ${id} ${why}`),
    });
    return { slots, clock, events };
  }
  const flags = (id: number, end = false) => ({ id, start: false, end });

  it('binds to the least-loaded instance, backlogs past the slots, and hands a freed slot to the oldest waiting', () => {
    const { slots, events } = setupSlots();
    for (const id of [1, 2, 3, 4]) slots.bind(id);
    expect(slots.list().map((b) => [b.id, b.instance])).toEqual([
      [1, 0],
      [2, 1],
      [3, -1],
      [4, -1],
    ]);
    expect(slots.backlogged).toBe(2);
    slots.release(2, 'end');
    expect(slots.get(3)?.instance).toBe(1);
    expect(slots.get(4)?.instance).toBe(-1);
    expect(events).toEqual(['bound 1 acc_0', 'bound 2 acc_1', 'ended 2 end', 'bound 3 acc_1']);
  });

  it('frees a sequence on END, or once idle for idleMs after its last request', () => {
    const { slots, clock, events } = setupSlots();
    const a = slots.bind(1);
    const b = slots.bind(2);
    a.pending = b.pending = 1;
    slots.finished(1, a, flags(1, true));
    slots.finished(2, b, flags(2));
    expect(events).toContain('ended 1 end');
    clock.advance(9);
    expect(slots.get(2)).toBe(b);
    clock.advance(1);
    expect(slots.get(2)).toBeUndefined();
    expect(events).toContain('ended 2 idle');
  });

  it('remembers the sequences of a failed instance as lost until they start again', () => {
    const { slots, events } = setupSlots();
    slots.bind(1);
    slots.bind(2);
    slots.instanceFailed(0, 'the worker exited');
    expect(slots.get(1)).toBeUndefined();
    expect(slots.lostReason(1)).toMatch(/sequence 1 on model 'acc' was lost \(the worker exited\)/);
    expect(slots.lostReason(2)).toBeUndefined();
    expect(events).toContain('ended 1 failed');
    slots.forgetLost(1);
    expect(slots.lostReason(1)).toBeUndefined();
  });
});
