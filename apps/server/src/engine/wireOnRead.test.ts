import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { ServerMessage, Tensor } from '@ensemble-studio/core';
import { Engine } from './Engine.ts';
import * as tensors from './tensors.ts';
import { makeTestRepository } from '../testing/engineFixtures.ts';
import { singleModelGraph } from '../testing/engineGraphs.ts';
import { SYNTHETIC } from '../onnx/synthetic.ts';

// Counts the conversions to JSON arrays (the module is the engine's own, wrapped).
vi.mock('./tensors.ts', async (original) => {
  const m = await original<typeof import('./tensors.ts')>();
  return { ...m, toWire: vi.fn(m.toWire) };
});

const repo = makeTestRepository(['extractor']);
let engine: Engine;
beforeAll(async () => {
  engine = await Engine.create({ repository: repo, gpu: 'auto' });
});
afterAll(() => engine.close());

describe("the terminal event's outputs", () => {
  it('are converted to JSON arrays only when read (a WebSocket client sends large ones as binary frames)', async () => {
    const events: ServerMessage[] = [];
    const x: Tensor = { datatype: 'FP32', shape: [2, SYNTHETIC.D], data: new Float32Array(2 * SYNTHETIC.D).fill(0.5) };
    const r = await engine.run({
      graph: singleModelGraph(
        'extractor',
        [{ name: 'x', dims: [SYNTHETIC.D] }],
        [{ name: 'feat', dims: [SYNTHETIC.F] }],
        32,
      ),
      inputs: { x },
      onEvent: (m) => events.push(m),
    });
    const done = events.find((e) => e.type === 'run.completed') as Extract<ServerMessage, { type: 'run.completed' }>;
    const toWire = vi.mocked(tensors.toWire);
    expect(toWire).not.toHaveBeenCalled();
    // Read (as `studio run` prints it): the same JSON as before, converted once.
    const printed = JSON.parse(JSON.stringify(done)) as typeof done;
    const [name, t] = Object.entries(r.outputs)[0]!;
    expect(printed.outputs[name]).toEqual({
      datatype: t.datatype,
      shape: [...t.shape],
      data: Array.from(t.data as Float32Array),
    });
    void done.outputs[name];
    expect(toWire).toHaveBeenCalledTimes(1);
  });
});
