import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ServerMessage, Tensor } from '@ensemble-studio/core';
import { singleModelGraph } from '@ensemble-studio/core';
import { loadRepository } from '../../../repo/loadRepository.ts';
import type { Repository } from '../../../repo/types.ts';
import { tempDir } from '../../../testing/tempDir.ts';
import { Engine } from '../../Engine.ts';
import { writePythonModels } from '../../../testing/pythonModels.ts';

let repo: Repository;
let engine: Engine;
const logs: string[] = [];

const f32 = (...v: number[]): Tensor => ({ datatype: 'FP32', shape: [v.length], data: Float32Array.from(v) });
const graphOf = (name: string) => singleModelGraph(repo.catalogue.models[name]!);

beforeAll(async () => {
  const dir = tempDir('py-engine-');
  writePythonModels(dir);
  repo = await loadRepository(dir);
  engine = await Engine.create({
    repository: repo,
    onModelLog: (model, _i, level, message) => logs.push(`${model} ${level} ${message}`),
  });
});
afterAll(async () => {
  await engine?.close();
});

describe('Python backend in the engine', () => {
  it('loads every model in its own python3 process and runs execute on its inputs', async () => {
    expect(engine.health().models.add_sub).toMatchObject({ state: 'ready', instances: 1 });
    const r = await engine.run({
      graph: graphOf('add_sub'),
      inputs: { INPUT0: f32(1, 2, 3, 4), INPUT1: f32(0.5, 0.5, 0.5, 0.5) },
    });
    expect(r.status).toBe('completed');
    expect([...(r.outputs.OUTPUT0!.data as Float32Array)]).toEqual([1.5, 2.5, 3.5, 4.5]);
    expect([...(r.outputs.OUTPUT1!.data as Float32Array)]).toEqual([0.5, 1.5, 2.5, 3.5]);
    expect(logs.some((l) => l.startsWith('add_sub info add_sub ready on add_sub_0_0'))).toBe(true);
  });

  it("runs a model that asks for a custom execution environment with the studio's python, saying so", async () => {
    expect(engine.health().notices.join('\n')).toMatch(
      /model 'env_path' sets EXECUTION_ENV_PATH \(\$\$TRITON_MODEL_DIRECTORY\/env\.tar\.gz\): custom execution environments are not supported locally/,
    );
    const r = await engine.run({
      graph: graphOf('env_path'),
      inputs: { INPUT0: f32(1, 2, 3, 4), INPUT1: f32(1, 1, 1, 1) },
    });
    expect(r.status).toBe('completed');
  });

  it('streams each response of a decoupled model downstream as it is sent', async () => {
    const events: ServerMessage[] = [];
    const responses: Record<string, Tensor>[] = [];
    const r = await engine.run({
      graph: graphOf('repeat'),
      inputs: { IN: { datatype: 'INT32', shape: [3], data: Int32Array.from([4, 5, 6]) } },
      onEvent: (m) => events.push(m),
      onResponse: (o, final) => {
        if (!final || Object.keys(o).length > 0) responses.push(o);
      },
    });
    expect(r.status).toBe('completed');
    expect(responses.map((o) => [...(o.OUT!.data as Int32Array)])).toEqual([[4], [5], [6]]);
    expect(events.filter((e) => e.type === 'run.partial')).toHaveLength(3);
    // No response at all (only the final flag) is a complete answer of a decoupled model.
    const none: boolean[] = [];
    const empty = await engine.run({
      graph: graphOf('repeat'),
      inputs: { IN: { datatype: 'INT32', shape: [0], data: new Int32Array(0) } },
      onResponse: (_o, final) => none.push(final),
    });
    expect(empty.status).toBe('completed');
    expect(none).toEqual([true]);
  });

  it('answers BLS calls: exec() into another model, a decoupled stream, and an unknown model as a response error', async () => {
    const r = await engine.run({ graph: graphOf('bls'), inputs: { X: f32(1, 2, 3, 4) } });
    expect(r.error).toBeUndefined();
    expect([...(r.outputs.Y!.data as Float32Array)]).toEqual([2, 4, 6, 8]);
    expect(r.outputs.ERR!.data).toEqual([
      "Failed for execute the inference request. Model 'no_such_model' is not ready.",
    ]);
    expect([...(r.outputs.STREAM!.data as Int32Array)]).toEqual([7, 8, 9]);
  });

  it('fails a request whose execute raises with the message and a traceback naming model.py', async () => {
    const events: ServerMessage[] = [];
    const r = await engine.run({ graph: graphOf('raiser'), inputs: { X: f32(3, 4) }, onEvent: (m) => events.push(m) });
    expect(r.status).toBe('failed');
    expect(r.error?.message).toMatch(/x must not be \[3\.0, 4\.0\]/);
    const failed = events.find((e) => e.type === 'node.failed');
    expect(failed?.type === 'node.failed' && failed.traceback).toMatch(/model\.py", line \d+, in check/);
  });

  it('hands execute a dynamic batch as a list of requests, never concatenated', async () => {
    const runs = await Promise.all(
      Array.from({ length: 4 }, (_, i) =>
        engine.run({
          graph: graphOf('batch'),
          inputs: { X: { datatype: 'FP32', shape: [1, 1], data: Float32Array.of(i) } },
        }),
      ),
    );
    expect(runs.map((r) => r.error?.message ?? r.status)).toEqual(['completed', 'completed', 'completed', 'completed']);
    const sizes = runs.map((r) => (r.outputs.N!.data as Int32Array)[0]);
    expect(Math.max(...sizes.map(Number))).toBeGreaterThan(1);
  });

  it('keeps per-graph counters for at most 256 graph names, pooling the runs of any further names', async () => {
    const inputs = { INPUT0: f32(1, 1, 1, 1), INPUT1: f32(1, 1, 1, 1) };
    for (let i = 0; i < 300; i++) await engine.run({ graph: { ...graphOf('add_sub'), name: `inline-${i}` }, inputs });
    const graphs = engine.metrics().graphs;
    expect(Object.keys(graphs).length).toBeLessThanOrEqual(257);
    expect(graphs['(other graphs)']!.requestSuccess).toBeGreaterThanOrEqual(300 - 256);
  });

  it('fails in-flight requests of an instance whose process exits, restarts it, and serves the next request', async () => {
    const r = await engine.run({ graph: graphOf('crasher'), inputs: { X: f32(-1) } });
    expect(r.status).toBe('failed');
    expect(r.error?.code).toBe('instance-crashed');
    expect(r.error?.message).toMatch(/crasher_0 \(python\) exited \(code 3\)/);
    await expect
      .poll(async () => (await engine.run({ graph: graphOf('crasher'), inputs: { X: f32(2) } })).status, {
        timeout: 10_000,
      })
      .toBe('completed');
    // Other models carried on.
    expect(
      (await engine.run({ graph: graphOf('add_sub'), inputs: { INPUT0: f32(1, 1, 1, 1), INPUT1: f32(1, 1, 1, 1) } }))
        .status,
    ).toBe('completed');
  });
});
