import { describe, expect, it } from 'vitest';
import { SequenceBatcher } from './SequenceBatcher.ts';
import type { InstanceRunner } from './sequenceTypes.ts';
import { syntheticConfigs } from '../testing/engineFixtures.ts';
import { directConfig, fakeAccumulator, manualClock, setupBatcher, x, y0 } from '../testing/sequenceFixtures.ts';
import { controlTensors } from './sequenceTensors.ts';

describe('SequenceBatcher (direct)', () => {
  const setup = () => setupBatcher(directConfig());

  it('binds new sequences to the least-loaded instance and carries state', async () => {
    const { sb, fake, events } = setup();
    expect(y0(await sb.infer(x(1), { id: 7, start: true, end: false }))).toBe(1);
    expect(y0(await sb.infer(x(1), { id: 8, start: true, end: false }))).toBe(1);
    expect(y0(await sb.infer(x(2), { id: 7, start: false, end: false }))).toBe(3);
    expect(y0(await sb.infer(x(3), { id: 7, start: false, end: true }))).toBe(6);
    expect(events).toEqual(['bound 7 acc_0', 'bound 8 acc_1', 'ended 7 end']);
    expect(fake.calls.map((c) => c.instance)).toEqual([0, 1, 0, 0]);
    expect(fake.calls.map((c) => c.start)).toEqual([1, 1, 0, 0]); // START control input
    expect(sb.list().map((b) => b.id)).toEqual([8]);
  });

  it('restarts a sequence on START for an active id', async () => {
    const { sb } = setup();
    await sb.infer(x(5), { id: 1, start: true, end: false });
    expect(y0(await sb.infer(x(1), { id: 1, start: true, end: false }))).toBe(1);
  });

  it('keeps the number 1 and the string "1" as two sequences, each with its own state', async () => {
    const { sb } = setup();
    await sb.infer(x(5), { id: 1, start: true, end: false });
    await sb.infer(x(2), { id: '1', start: true, end: false });
    expect(y0(await sb.infer(x(1), { id: 1, start: false, end: false }))).toBe(6);
    expect(y0(await sb.infer(x(1), { id: '1', start: false, end: true }))).toBe(3);
    expect(sb.list().map((b) => b.id)).toEqual([1]);
    await expect(sb.infer(x(1), { id: '1', start: false, end: false })).rejects.toMatchObject({
      code: 'sequence-unknown',
    });
  });

  it('rejects a request without START for an unknown id, and id 0', async () => {
    const { sb } = setup();
    await expect(sb.infer(x(1), { id: 'abc', start: false, end: false })).rejects.toMatchObject({
      code: 'sequence-unknown',
      message: expect.stringContaining('must specify the START flag on the first request of the sequence'),
    });
    await expect(sb.infer(x(1), { id: 0, start: true, end: false })).rejects.toMatchObject({ code: 'invalid-input' });
  });

  it('frees an idle sequence after max_sequence_idle_microseconds', async () => {
    const { sb, clock, events } = setup();
    await sb.infer(x(1), { id: 3, start: true, end: false });
    await new Promise((r) => setImmediate(r));
    clock.advance(0.5);
    expect(sb.list()).toHaveLength(1);
    clock.advance(1);
    expect(sb.list()).toHaveLength(0);
    expect(events).toContain('ended 3 idle');
    await expect(sb.infer(x(1), { id: 3, start: false, end: false })).rejects.toMatchObject({
      code: 'sequence-unknown',
    });
  });

  it('counts idle time from the last request, not from the first', async () => {
    const { sb, clock, events } = setup();
    const settle = () => new Promise((r) => setImmediate(r));
    await sb.infer(x(1), { id: 4, start: true, end: false });
    await settle();
    clock.advance(0.6);
    await sb.infer(x(1), { id: 4, start: false, end: false });
    await settle();
    clock.advance(0.6); // the timer armed after the first request fires, sees 0.6 ms idle, waits out the rest
    expect(sb.list()).toHaveLength(1);
    clock.advance(0.5);
    expect(events).toContain('ended 4 idle');
  });

  it('never idles out a sequence while one of its requests is running', async () => {
    const fake = fakeAccumulator();
    const clock = manualClock();
    let hold = false;
    let release!: () => void;
    const gate = new Promise<void>((r) => {
      release = r;
    });
    const run: InstanceRunner = async (feeds, i) => {
      if (hold) await gate;
      return fake.run(feeds, i);
    };
    const sb = new SequenceBatcher({
      model: 'acc',
      config: directConfig(),
      instances: 1,
      instanceName: (i) => `acc_${i}`,
      run,
      schedule: clock.schedule,
      now: clock.now,
    });
    const settle = () => new Promise((r) => setImmediate(r));
    await sb.infer(x(1), { id: 5, start: true, end: false });
    await settle();
    hold = true;
    const slow = sb.infer(x(2), { id: 5, start: false, end: false });
    clock.advance(5); // far past the 1 ms limit while the request runs
    expect(sb.list()).toHaveLength(1);
    release();
    expect(y0(await slow)).toBe(3);
    await settle();
    clock.advance(0.5);
    expect(sb.list()).toHaveLength(1);
    clock.advance(1);
    expect(sb.list()).toHaveLength(0);
  });

  it('tells the client the state is gone when its instance failed', async () => {
    const { sb } = setup();
    await sb.infer(x(1), { id: 4, start: true, end: false });
    sb.instanceFailed(0, 'model instance acc_0 crashed');
    await expect(sb.infer(x(1), { id: 4, start: false, end: false })).rejects.toMatchObject({
      code: 'sequence-lost',
      message: expect.stringContaining('restart the sequence with START'),
    });
    expect(y0(await sb.infer(x(1), { id: 4, start: true, end: false }))).toBe(1);
  });
});

describe('SequenceBatcher (oldest)', () => {
  it("moves to the worker only what a batch built itself: concatenations, not a lone request's tensors", async () => {
    const moved: string[][] = [];
    const run: InstanceRunner = async (feeds, instance, _signal, _summarize, fresh) => {
      moved.push(
        Object.keys(feeds)
          .filter((n) => fresh?.has(feeds[n]!))
          .sort(),
      );
      const [a, s] = [feeds.x!.data as Float32Array, feeds.state_in!.data as Float32Array];
      const y = a.map((v, i) => v + s[i]!);
      return {
        outputs: {
          y: { datatype: 'FP32', shape: feeds.x!.shape, data: y },
          state_out: { datatype: 'FP32', shape: feeds.x!.shape, data: y.slice() },
        },
        instance: `acc_${instance}`,
        queueNs: 0,
        computeNs: 0,
      };
    };
    const sb = new SequenceBatcher({
      model: 'acc',
      config: syntheticConfigs().accumulator!,
      instances: 1,
      instanceName: (i) => `acc_${i}`,
      run,
    });
    const controls = Object.keys(controlTensors(syntheticConfigs().accumulator!, [{ id: 1, start: true, end: false }]));
    const first = await Promise.all([1, 2, 3].map((id) => sb.infer(x(id), { id, start: true, end: false })));
    expect(first.map(y0)).toEqual([1, 2, 3]);
    expect(moved[0]).toEqual(['state_in', 'x', ...controls].sort());
    expect(y0(await sb.infer(x(10), { id: 2, start: false, end: true }))).toBe(12);
    expect(moved[1]).toEqual([...controls].sort());
  });
});
