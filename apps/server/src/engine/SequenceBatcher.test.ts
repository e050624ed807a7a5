import { afterAll, describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import * as ort from 'onnxruntime-node';
import type { ModelConfig, Tensor } from '@ensemble-studio/core';
import { SequenceBatcher } from './SequenceBatcher.ts';
import type { InstanceRunner } from './sequenceTypes.ts';
import { ModelRuntime } from './ModelRuntime.ts';
import { makeTestRepository, syntheticConfigs } from '../testing/engineFixtures.ts';
import { mulberry32, SYNTHETIC } from '../onnx/synthetic.ts';
import type { Schedule } from './Batcher.ts';
import { EngineError } from './errors.ts';
import { controlTensors } from './sequenceTensors.ts';
import { foldScalarInput } from '../examples/foldConstantInput.ts';
import { modelSources } from '../examples/modelSources.ts';

const S = SYNTHETIC.S;
const x = (v: number): Record<string, Tensor> => ({
  x: { datatype: 'FP32', shape: [1, S], data: new Float32Array(S).fill(v) },
});
const y0 = (r: { outputs: Record<string, Tensor> }) => (r.outputs.y!.data as Float32Array)[0];

/** The accumulator in JS: a fake runner that records which instance ran what. */
function fakeAccumulator() {
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

function directConfig(): ModelConfig {
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

function manualClock() {
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
function setupBatcher(config: ModelConfig) {
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

describe('sequence batching on real models', () => {
  const repo = makeTestRepository(['accumulator', 'vad']);
  const runtimes: ModelRuntime[] = [];
  afterAll(async () => {
    await Promise.all(runtimes.map((r) => r.close()));
  });

  async function runtime(name: string, config: ModelConfig): Promise<ModelRuntime> {
    const rt = new ModelRuntime({
      name,
      config,
      path: repo.modelFile(name)!,
      backend: 'onnx',
      repoDir: repo.dir,
      intraOpThreads: 1,
      gpu: 'off',
    });
    runtimes.push(rt);
    await rt.load();
    expect({ state: rt.state, error: rt.error }).toEqual({ state: 'ready', error: undefined });
    return rt;
  }

  it('oldest: batches 64 sequences together and keeps each sum', async () => {
    const rt = await runtime('accumulator', repo.catalogue.models.accumulator!.config);
    const steps = 5;
    await Promise.all(
      Array.from({ length: 64 }, async (_, s) => {
        let sum = 0;
        for (let k = 0; k < steps; k++) {
          const v = s * 100 + k;
          sum += v;
          const r = await rt.infer({ inputs: x(v), sequence: { id: s + 1, start: k === 0, end: k === steps - 1 } });
          expect(Array.from(r.outputs.y!.data as Float32Array)).toEqual(new Array(S).fill(sum));
        }
      }),
    );
    const sizes = Object.keys(rt.stats.snapshot(0).batchSizes).map(Number);
    expect(Math.max(...sizes)).toBeGreaterThan(1);
    expect(rt.sequences!.list()).toHaveLength(0);
  });

  it('Silero VAD: 64 concurrent sequences, batched, each equal the original model run one stream at a time', async () => {
    const rt = await runtime('vad', repo.catalogue.models.vad!.config);
    const chunks = 12;
    const audio = Array.from({ length: 64 }, (_, s) => {
      const r = mulberry32(s + 1);
      return Array.from({ length: chunks }, (_, k) =>
        Float32Array.from(
          { length: 576 },
          (_, i) => Math.sin((i + k * 512) * 0.05 * (1 + (s % 7))) * (k % 3 === 0 ? 0.6 : 0.05) + (r() - 0.5) * 0.1,
        ),
      );
    });
    // The reference is Silero as published (batch-second state), not the batch-first rewrite the engine serves.
    const session = await ort.InferenceSession.create(foldScalarInput(readFileSync(modelSources().vad), 'sr', 16000n), {
      intraOpNumThreads: 1,
    });
    const reference: number[][] = [];
    for (const stream of audio) {
      let state: ort.Tensor = new ort.Tensor('float32', new Float32Array(256), [2, 1, 128]);
      const probs: number[] = [];
      for (const chunk of stream) {
        const out = await session.run({ input: new ort.Tensor('float32', chunk, [1, 576]), state });
        probs.push((out.output!.data as Float32Array)[0]!);
        state = out.stateN as ort.Tensor;
      }
      reference.push(probs);
    }
    const seen = new Set<string>();
    const got = await Promise.all(
      audio.map(async (stream, s) => {
        const probs: number[] = [];
        for (let k = 0; k < stream.length; k++) {
          const r = await rt.infer({
            inputs: { input: { datatype: 'FP32', shape: [1, 576], data: stream[k]! } },
            sequence: { id: `stream-${s}`, start: k === 0, end: k === stream.length - 1 },
          });
          seen.add(r.instance);
          probs.push((r.outputs.output!.data as Float32Array)[0]!);
        }
        return probs;
      }),
    );
    let maxDiff = 0;
    got.forEach((probs, s) => {
      expect(probs).toHaveLength(chunks);
      probs.forEach((p, k) => {
        maxDiff = Math.max(maxDiff, Math.abs(p - reference[s]![k]!));
      });
    });
    expect(maxDiff).toBeLessThanOrEqual(1e-5);
    expect(new Set(reference.map((r) => r.join())).size).toBe(64); // streams differ, so misrouting would show
    expect(seen).toEqual(new Set(['vad_0', 'vad_1']));
    expect(Math.max(...Object.keys(rt.stats.snapshot(0).batchSizes).map(Number))).toBeGreaterThan(1);
  });
});
