// Sequences whose implicit state the model instance keeps (the ONNX workers): requests carry slot numbers,
// and START, END, the idle timeout and a crashed instance act on the state where it is kept.
import { afterAll, describe, expect, it, vi } from 'vitest';
import type { ModelConfig, Tensor } from '@ensemble-studio/core';
import { SlotStates } from './backends/onnx/slotStates.ts';
import { ModelRuntime } from './ModelRuntime.ts';
import { SequenceBatcher, type InstanceRunner } from './SequenceBatcher.ts';
import { heldStateSpecs, type HeldStates } from './sequenceTensors.ts';
import { makeTestRepository, syntheticConfigs } from '../testing/engineFixtures.ts';
import { SYNTHETIC } from '../onnx/synthetic.ts';

const S = SYNTHETIC.S;
const x = (v: number): Record<string, Tensor> => ({
  x: { datatype: 'FP32', shape: [1, S], data: new Float32Array(S).fill(v) },
});
const y0 = (r: { outputs: Record<string, Tensor> }) => (r.outputs.y!.data as Float32Array)[0];

/** Two instances of the accumulator, each keeping its sequences' state in a `SlotStates` as its worker does. */
function heldAccumulator(config: ModelConfig) {
  const kept = [new SlotStates(heldStateSpecs(config)), new SlotStates(heldStateSpecs(config))];
  const sent: { instance: number; feeds: string[]; held: HeldStates }[] = [];
  const run: InstanceRunner = async (feeds, instance, _s, _m, _f, _flags, _extra, held) => {
    if (!held) throw new Error('a request without its slots');
    sent.push({ instance, feeds: Object.keys(feeds).sort(), held });
    const state = kept[instance]!.feeds(held).state_in!;
    const a = feeds.x!.data as Float32Array;
    const y = a.map((v, i) => v + (state.data as Float32Array)[i]!);
    const outputs = { y: { datatype: 'FP32', shape: feeds.x!.shape, data: y } as Tensor };
    return {
      outputs: kept[instance]!.keep(held, { ...outputs, state_out: { ...outputs.y, data: y.slice() } }),
      instance: `acc_${instance}`,
      queueNs: 0,
      computeNs: 0,
    };
  };
  const sb = new SequenceBatcher({
    model: 'acc',
    config,
    instances: 2,
    instanceName: (i) => `acc_${i}`,
    run,
    holdsStates: true,
  });
  return { sb, sent, kept };
}

describe('SequenceBatcher with the state kept by the instance', () => {
  const config = syntheticConfigs().accumulator!;

  it('sends slots instead of state; START starts over; an ended slot is dropped with its instance’s next request', async () => {
    const { sb, sent, kept } = heldAccumulator(config);
    expect(y0(await sb.infer(x(1), { id: 'a', start: true, end: false }))).toBe(1);
    expect(sent[0]!.feeds).toEqual(['x']);
    expect(sent[0]!.held).toMatchObject({ reset: [0], release: [] });
    expect(y0(await sb.infer(x(2), { id: 'a', start: false, end: false }))).toBe(3);
    expect(sent[1]!.held).toMatchObject({ reset: [], release: [] });
    expect(sent[1]!.held.init).toBeUndefined();
    expect(y0(await sb.infer(x(5), { id: 'a', start: true, end: false }))).toBe(5);
    expect(y0(await sb.infer(x(1), { id: 'a', start: false, end: true }))).toBe(6);
    const slotA = sent[0]!.held.slots[0]!;
    const onA = sent[0]!.instance;
    expect(kept[onA]!.size).toBe(1);
    // 'b' binds to the least-loaded instance; 'c' then to the other: the one that ran 'a' gets the release.
    const [b, c] = await Promise.all([
      sb.infer(x(7), { id: 'b', start: true, end: false }),
      sb.infer(x(8), { id: 'c', start: true, end: false }),
    ]);
    expect([y0(b), y0(c)]).toEqual([7, 8]);
    expect(sent.find((s) => s.instance === onA && s.held.release.length > 0)?.held.release).toEqual([slotA]);
    expect(kept[onA]!.size).toBe(1);
  });

  it('a failed first request leaves the sequence to start from the initial state again', async () => {
    const { sb, kept } = heldAccumulator(config);
    const feeds = vi.spyOn(kept[0]!, 'feeds').mockImplementationOnce(() => {
      throw new Error('session failed');
    });
    await expect(sb.infer(x(3), { id: 1, start: true, end: false })).rejects.toThrow('session failed');
    expect(y0(await sb.infer(x(4), { id: 1, start: false, end: false }))).toBe(4);
    feeds.mockRestore();
  });

  it("does not send a crashed instance's slots to its restarted worker", async () => {
    const { sb, sent } = heldAccumulator(config);
    await sb.infer(x(1), { id: 1, start: true, end: false }); // holds instance 0
    await sb.infer(x(1), { id: 2, start: true, end: true }); // ends on instance 1: its release waits there
    expect(sent.at(-1)!.instance).toBe(1);
    sb.instanceFailed(1, 'model instance acc_1 crashed');
    await sb.infer(x(1), { id: 3, start: true, end: false });
    expect(sent.at(-1)).toMatchObject({ instance: 1, held: { release: [] } });
  });
});

describe('state kept in the ONNX workers (real onnxruntime)', () => {
  const repo = makeTestRepository(['accumulator']);
  const runtimes: ModelRuntime[] = [];
  afterAll(async () => {
    await Promise.all(runtimes.map((r) => r.close()));
  });

  async function runtime(config: ModelConfig): Promise<ModelRuntime> {
    const rt = new ModelRuntime({
      name: 'accumulator',
      config,
      path: repo.modelFile('accumulator')!,
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
  const acc = repo.catalogue.models.accumulator!.config;
  const step = (rt: ModelRuntime, id: number, v: number, start = false) =>
    rt.infer({ inputs: x(v), sequence: { id, start, end: false } });

  it('a crashed instance loses its sequences’ state; the other instance’s sequences keep theirs', async () => {
    const rt = await runtime({ ...acc, instance_group: [{ count: 2, kind: 'KIND_CPU' }] });
    const first = await Promise.all([step(rt, 1, 10, true), step(rt, 2, 20, true)]);
    expect(new Set(first.map((r) => r.instance))).toEqual(new Set(['accumulator_0', 'accumulator_1']));
    await Promise.all([step(rt, 1, 1), step(rt, 2, 2)]);
    const crashed = first[0]!.instance === 'accumulator_0' ? 0 : 1;
    rt.pool.crashInstance(crashed);
    await vi.waitFor(() => expect(rt.sequences!.list().map((b) => b.id)).toEqual([2]), { timeout: 10_000 });
    await expect(step(rt, 1, 1)).rejects.toMatchObject({ code: 'sequence-lost' });
    expect(y0(await step(rt, 2, 3))).toBe(25);
    expect(y0(await step(rt, 1, 4, true))).toBe(4); // restarted from zero, on whichever instance is least loaded
    expect(y0(await step(rt, 1, 1))).toBe(5);
  });

  it('returns a state output the config lists as an output, and keeps carrying the state', async () => {
    const rt = await runtime({ ...acc, output: [...(acc.output ?? []), { ...acc.output![0]!, name: 'state_out' }] });
    const r1 = await step(rt, 7, 2, true);
    expect(Array.from(r1.outputs.state_out!.data as Float32Array)).toEqual(new Array(S).fill(2));
    expect(y0(await step(rt, 7, 3))).toBe(5);
  });

  it('does not send the state back when the config does not list it', async () => {
    const rt = await runtime(acc);
    const r = await step(rt, 9, 1, true);
    expect(Object.keys(r.outputs)).toEqual(['y']);
  });
});
