import { chmodSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { GraphDoc, ServerMessage, Tensor } from '@ensemble-studio/core';
import { GRAPH_VERSION, singleModelGraph } from '@ensemble-studio/core';
import { loadRepository } from '../../../repo/loadRepository.ts';
import type { Repository } from '../../../repo/types.ts';
import { tempDir } from '../../../testing/tempDir.ts';
import { Engine } from '../../Engine.ts';
import { writePythonModels } from '../../../testing/pythonModels.ts';

// Model files that misbehave: each gets a clear error, and the server, other runs and other models carry on.

let repo: Repository;
let engine: Engine;
const f32 = (...v: number[]): Tensor => ({ datatype: 'FP32', shape: [v.length], data: Float32Array.from(v) });
const run = (model: string, x: number, extra: Partial<Parameters<Engine['run']>[0]> = {}) =>
  engine.run({ graph: singleModelGraph(repo.catalogue.models[model]!), inputs: { X: f32(x) }, ...extra });

beforeAll(async () => {
  const dir = tempDir('py-hostile-');
  writePythonModels(dir, ['stuck', 'loud', 'two_responses', 'wrong_dtype', 'crasher', 'bls_wrong_dtype']);
  repo = await loadRepository(dir);
  engine = await Engine.create({ repository: repo });
});
afterAll(async () => {
  await engine?.close();
});

describe('hostile model.py files', () => {
  it('a model that never returns: the run times out, the process is replaced, the next request runs', async () => {
    const other = run('crasher', 5);
    const r = await run('stuck', -1, { timeoutMs: 300 });
    expect(r.error?.code).toBe('timeout');
    expect((await other).status).toBe('completed');
    await expect
      .poll(async () => (await run('stuck', 1, { timeoutMs: 2000 })).status, { timeout: 15_000, interval: 200 })
      .toBe('completed');
  });

  it('a model that prints megabytes: the run completes, its log is cut to whole, bounded lines', async () => {
    const events: ServerMessage[] = [];
    const t0 = Date.now();
    const r = await run('loud', 2, { onEvent: (m) => events.push(m) });
    const seconds = Math.ceil((Date.now() - t0) / 1000);
    expect(r.status).toBe('completed');
    const logs = events.filter((e): e is Extract<ServerMessage, { type: 'run.log' }> => e.type === 'run.log');
    expect(logs.length).toBeGreaterThan(0);
    // Of 50 001 lines, 200 a second pass (plus one notice a second saying how many were dropped).
    expect(logs.length).toBeLessThanOrEqual(202 * (seconds + 1));
    expect(Math.max(...logs.map((l) => l.message.length))).toBeLessThan(5000);
    expect(logs.some((l) => /lines are dropped/.test(l.message))).toBe(true);
  });

  it('a model that returns more responses than requests fails with a message saying so', async () => {
    const r = await run('two_responses', 1);
    expect(r.status).toBe('failed');
    expect(r.error?.message).toMatch(/2 responses? .*1 request|expected 1 .*got 2|returned 2/i);
  });

  it('a model that returns the wrong data type: passed on as sent (as Triton does), refused by the model it feeds', async () => {
    const alone = await run('wrong_dtype', 1);
    expect(alone.outputs.Y?.datatype).toBe('INT64');
    const at = { x: 0, y: 0 };
    const graph: GraphDoc = {
      version: GRAPH_VERSION,
      name: 'chain',
      maxBatchSize: 0,
      nodes: [
        { id: 'x', kind: 'input', position: at, params: { name: 'X', datatype: 'FP32', dims: [1] } },
        { id: 'a', kind: 'model', position: at, params: { model: 'wrong_dtype' } },
        { id: 'b', kind: 'model', position: at, params: { model: 'crasher' } },
        { id: 'y', kind: 'output', position: at, params: { name: 'Y', datatype: 'FP32', dims: [1] } },
      ],
      edges: [
        { id: 'e1', source: 'x', sourcePort: 'out', target: 'a', targetPort: 'X' },
        { id: 'e2', source: 'a', sourcePort: 'Y', target: 'b', targetPort: 'X' },
        { id: 'e3', source: 'b', sourcePort: 'Y', target: 'y', targetPort: 'in' },
      ],
    };
    const r = await engine.run({ graph, inputs: { X: f32(1) } });
    expect(r.status).toBe('failed');
    // Triton's step request check (Normalize), after the ensemble's name and the request's id: no node.
    expect(r.error?.message).toBe(
      "in ensemble 'chain', [request id: <id_unknown>] inference input 'X' data-type is 'INT64', but model 'crasher' expects 'FP32'",
    );
    const withId = await engine.run({ graph, inputs: { X: f32(1) }, requestId: 'r7' });
    expect(withId.error?.message).toMatch(/^in ensemble 'chain', \[request id: r7\] inference input 'X' data-type/);
  });

  it("a BLS call of a model with an input of the wrong data type: refused in Triton core's words alone", async () => {
    const r = await run('bls_wrong_dtype', 1);
    expect(r.status).toBe('completed');
    expect(r.outputs.ERR!.data).toEqual([
      "[request id: <id_unknown>] inference input 'X' data-type is 'INT64', but model 'crasher' expects 'FP32'",
    ]);
  });
});

describe('python interpreter problems', () => {
  it('makes the model unavailable, saying what to install, when python has no numpy; ONNX-free engines still start', async () => {
    const dir = tempDir('py-nonumpy-');
    writePythonModels(dir, ['add_sub']);
    const fake = join(dir, 'python-without-numpy');
    // `-S` skips site-packages, where numpy lives: an interpreter as a user without numpy would have.
    writeFileSync(fake, `#!/bin/sh\nexec ${process.env.STUDIO_PYTHON || 'python3'} -S "$@"\n`);
    chmodSync(fake, 0o755);
    const e = await Engine.create({ repository: await loadRepository(dir), python: fake });
    try {
      const h = e.health().models.add_sub!;
      expect(h.state).toBe('unavailable');
      expect(h.error).toMatch(/has no numpy.*apt-get install python3-numpy/);
    } finally {
      await e.close();
    }
  });

  it('names the missing interpreter and how to choose another', async () => {
    const dir = tempDir('py-nopython-');
    writePythonModels(dir, ['add_sub']);
    const e = await Engine.create({ repository: await loadRepository(dir), python: '/nonexistent/python3' });
    try {
      expect(e.health().models.add_sub!.error).toMatch(
        /no python interpreter '\/nonexistent\/python3'.*--python PATH or STUDIO_PYTHON/,
      );
    } finally {
      await e.close();
    }
  });
});

describe('a model.py whose finalize raises', () => {
  it('has its error and traceback in the server log at unload, as Triton logs them', async () => {
    // The stub reported the failure and the studio dropped it: the log said nothing.
    const dir = tempDir('py-finalize-raises-');
    mkdirSync(join(dir, 'fin_raise', '1'), { recursive: true });
    writeFileSync(
      join(dir, 'fin_raise', 'config.pbtxt'),
      `backend: "python"
input [ { name: "X" data_type: TYPE_FP32 dims: [ 1 ] } ]
output [ { name: "Y" data_type: TYPE_FP32 dims: [ 1 ] } ]
`,
    );
    writeFileSync(
      join(dir, 'fin_raise', '1', 'model.py'),
      `class TritonPythonModel:
    def execute(self, requests):
        return []

    def finalize(self):
        raise RuntimeError("finalize exploded")
`,
    );
    const lines: string[] = [];
    const e = await Engine.create({
      repository: await loadRepository(dir),
      onModelLog: (_model, instance, level, message) => lines.push(`${instance} ${level} ${message}`),
    });
    e.unloadModel('fin_raise');
    await e.close();
    const logged = lines.find((l) => l.includes('finalize exploded'));
    expect(logged).toMatch(/^fin_raise_0 error finalize of model 'fin_raise' failed: RuntimeError: finalize exploded/);
    expect(logged).toContain('raise RuntimeError("finalize exploded")'); // its traceback
  });
});
