import { describe, expect, it } from 'vitest';
import type { ModelConfig } from '@ensemble-studio/core';
import { SequenceBatcher } from './SequenceBatcher.ts';
import { syntheticConfigs } from '../testing/engineFixtures.ts';
import { directConfig, fakeAccumulator, setupBatcher, x, y0 } from '../testing/sequenceFixtures.ts';
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
