import type { ModelConfig, Tensor } from '@ensemble-studio/core';
import { SYNTHETIC } from '../onnx/synthetic.ts';
import type { Schedule } from '../engine/Batcher.ts';
import { SequenceBatcher } from '../engine/SequenceBatcher.ts';
import type { InstanceRunner } from '../engine/sequenceTypes.ts';
import { syntheticConfigs } from './engineFixtures.ts';

// A sequence batcher over fake accumulator instances on a manual clock, for the batcher's and its slot table's tests.

/** Elements per row of the synthetic accumulator. */
export const S = SYNTHETIC.S;

/** One request's input: a row of `v`. */
export const x = (v: number): Record<string, Tensor> => ({
  x: { datatype: 'FP32', shape: [1, S], data: new Float32Array(S).fill(v) },
});

/** The first element of a result's `y`. */
export const y0 = (r: { outputs: Record<string, Tensor> }) => (r.outputs.y!.data as Float32Array)[0];

/** The accumulator in JS: a fake runner that records which instance ran what. */
export function fakeAccumulator() {
  const calls: { instance: number; start: number }[] = [];
  const run: InstanceRunner = async (feeds, instance) => {
    const a = feeds.x!.data as Float32Array;
    const s = feeds.state_in!.data as Float32Array;
    const y = a.map((v, i) => v + s[i]!);
    calls.push({ instance, start: (feeds.START?.data as Int32Array | undefined)?.[0] ?? -1 });
    return {
      outputs: {
        y: { datatype: 'FP32', shape: [1, S], data: y },
        state_out: { datatype: 'FP32', shape: [1, S], data: y.slice() },
      },
      instance: `acc_${instance}`,
      queueNs: 0,
      computeNs: 0,
    };
  };
  return { run, calls };
}

/** The synthetic accumulator under `direct`, idle after 1 ms, with a START control. */
export function directConfig(): ModelConfig {
  const c = syntheticConfigs().accumulator!;
  return {
    ...c,
    sequence_batching: {
      ...c.sequence_batching,
      oldest: undefined,
      direct: {},
      max_sequence_idle_microseconds: 1000,
      control_input: [{ name: 'START', control: [{ kind: 'CONTROL_SEQUENCE_START', int32_false_true: [0, 1] }] }],
    },
  };
}

/** Timers fired by `advance(ms)` only, and the clock they read. */
export function manualClock() {
  let now = 0;
  const timers: { at: number; fn: () => void; live: boolean }[] = [];
  const schedule: Schedule = (fn, ms) => {
    const t = { at: now + ms, fn, live: true };
    timers.push(t);
    return () => {
      t.live = false;
    };
  };
  const advance = (ms: number) => {
    now += ms;
    for (const t of timers.splice(0))
      if (t.live && t.at <= now) t.fn();
      else if (t.live) timers.push(t);
  };
  return { schedule, advance, now: () => now };
}

/** A SequenceBatcher over two instances of the fake accumulator, on a manual clock, recording bound/ended events. */
export function setupBatcher(config: ModelConfig) {
  const fake = fakeAccumulator();
  const clock = manualClock();
  const events: string[] = [];
  const sb = new SequenceBatcher({
    model: 'acc',
    config,
    instances: 2,
    instanceName: (i) => `acc_${i}`,
    run: fake.run,
    schedule: clock.schedule,
    now: clock.now,
    onBound: (id, inst) => events.push(`bound ${id} ${inst}`),
    onEnded: (id, why) => events.push(`ended ${id} ${why}`),
  });
  return { sb, fake, clock, events };
}
