import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { GraphDoc, ServerMessage, Tensor } from '@ensemble-studio/core';
import { EXAMPLES_DIR } from '../../../../examples/prepare.ts';
import { loadRepository } from '../../../../repo/loadRepository.ts';
import { Engine } from '../../../Engine.ts';

// The bundled python-* example graphs, run through the real engine and python3 stubs exactly as they sit in
// examples/model_repository (only Python models, so no prepared ONNX files are needed).

let engine: Engine;
const graph = (name: string): GraphDoc =>
  JSON.parse(readFileSync(join(EXAMPLES_DIR, name, 'studio.json'), 'utf8')) as GraphDoc;
const floats = (t: Tensor | undefined): number[] => [...(t!.data as Float32Array)];

function page(ink: boolean): Tensor {
  const [h, w] = [20, 30];
  const data = new Uint8Array(h * w * 3).fill(255);
  if (ink) for (let y = 3; y < 6; y++) for (let x = 4; x < 20; x++) data.fill(0, (y * w + x) * 3, (y * w + x) * 3 + 3);
  return { datatype: 'UINT8', shape: [h, w, 3], data };
}

beforeAll(async () => {
  engine = await Engine.create({ repository: await loadRepository(EXAMPLES_DIR), lazy: true });
});
afterAll(async () => {
  await engine?.close();
});

describe('python-* examples', () => {
  it('python-text-exit: boxes the text; a blank page fails python_text_boxes and skips the rest', async () => {
    const ok = await engine.run({ graph: graph('python-text-exit'), inputs: { image: page(true) } });
    expect(ok.status).toBe('completed');
    expect(floats(ok.outputs.boxes)).toEqual([4, 3, 20, 6]);
    expect(floats(ok.outputs.ink)).toEqual([1]);
    const events: ServerMessage[] = [];
    const blank = await engine.run({
      graph: graph('python-text-exit'),
      inputs: { image: page(false) },
      onEvent: (m) => events.push(m),
    });
    expect(blank.status).toBe('failed');
    expect(blank.error?.message).toMatch(/no text found/);
    const failed = events.find((e) => e.type === 'node.failed');
    expect(failed?.type === 'node.failed' && failed.traceback).toMatch(
      /python_text_boxes\/1\/model\.py", line \d+, in execute/,
    );
    expect(events.some((e) => e.type === 'node.skipped' && e.nodeId === 'line_ink')).toBe(true);
  });

  it('python-text-bls: the same through BLS; a blank page gives empty boxes instead of an error', async () => {
    const ok = await engine.run({ graph: graph('python-text-bls'), inputs: { image: page(true) } });
    expect(ok.error).toBeUndefined();
    expect(floats(ok.outputs.boxes)).toEqual([4, 3, 20, 6]);
    const blank = await engine.run({ graph: graph('python-text-bls'), inputs: { image: page(false) } });
    expect(blank.status).toBe('completed');
    expect(blank.outputs.boxes?.shape).toEqual([0, 4]);
    expect(blank.outputs.ink?.shape).toEqual([0]);
  });

  it('python-stream-chunks: each chunk the decoupled model sends flows on as its own response', async () => {
    const signal = Float32Array.from({ length: 10_000 }, (_, i) => (i % 7) - 3);
    const responses: Record<string, Tensor>[] = [];
    const r = await engine.run({
      graph: graph('python-stream-chunks'),
      inputs: { signal: { datatype: 'FP32', shape: [signal.length], data: signal } },
      onResponse: (o, final) => {
        if (!final || Object.keys(o).length > 0) responses.push(o);
      },
    });
    expect(r.error).toBeUndefined();
    const got = responses
      .map((o) => [(o.index!.data as Int32Array)[0], o.chunk!.shape[0]])
      .sort((a, b) => a[0]! - b[0]!);
    expect(got).toEqual([
      [0, 4000],
      [1, 4000],
      [2, 2000],
    ]);
    for (const o of responses) expect(floats(o.rms)[0]).toBeGreaterThan(1);
  });

  it('python-stream-state: each stream keeps its sum on the one instance that holds it', async () => {
    const x = (v: number): Tensor => ({ datatype: 'FP32', shape: [1, 4], data: new Float32Array(4).fill(v) });
    const stream = async (id: number) => {
      const seen: [number, string][] = [];
      for (let step = 0; step < 3; step++) {
        const r = await engine.run({
          graph: graph('python-stream-state'),
          inputs: { x: x(id) },
          sequence: { id, start: step === 0, end: step === 2 },
        });
        expect(r.error).toBeUndefined();
        seen.push([floats(r.outputs.sum)[0]!, String((r.outputs.instance!.data as string[])[0])]);
      }
      return seen;
    };
    const [a, b] = await Promise.all([stream(11), stream(12)]);
    expect(a!.map(([s]) => s)).toEqual([11, 22, 33]);
    expect(b!.map(([s]) => s)).toEqual([12, 24, 36]);
    expect(new Set(a!.map(([, i]) => i)).size).toBe(1);
    expect(new Set(b!.map(([, i]) => i)).size).toBe(1);
    expect(a![0]![1]).toMatch(/^python_stream_state_0_[01]$/);
  });
});
