import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Tensor } from '@ensemble-studio/core';
import { singleModelGraph } from '@ensemble-studio/core';
import { loadRepository } from '../../../repo/loadRepository.ts';
import type { Repository } from '../../../repo/types.ts';
import { writeFinishesPrevious } from '../../../testing/finishesPreviousModel.ts';
import { tempDir } from '../../../testing/tempDir.ts';
import { Engine } from '../../Engine.ts';

// As in Triton, a Python model instance takes its next execute once `execute` returns, even while a decoupled
// model still holds the senders of earlier requests (a thread sends later, or a later execute sends their final).

let repo: Repository;
let engine: Engine;
const f32 = (...v: number[]): Tensor => ({ datatype: 'FP32', shape: [v.length], data: Float32Array.from(v) });
const collecting = (x: number, extra: Partial<Parameters<Engine['run']>[0]> = {}) => {
  const ys: number[] = [];
  /** Each call's final flag, and whether it carried outputs: `[true, 'Y']` is a last response sent FINAL. */
  const calls: [boolean, string][] = [];
  const result = engine.run({
    graph: singleModelGraph(repo.catalogue.models.finishes_previous!),
    inputs: { X: f32(x) },
    timeoutMs: 20_000,
    onResponse: (o, final) => {
      calls.push([final, Object.keys(o).join()]);
      if (o.Y) ys.push(Number((o.Y.data as Float32Array)[0]));
    },
    ...extra,
  });
  return { ys, calls, result };
};

beforeAll(async () => {
  const dir = tempDir('py-decoupled-after-return-');
  writeFinishesPrevious(dir, 'pid');
  repo = await loadRepository(dir);
  engine = await Engine.create({ repository: repo });
});
afterAll(async () => {
  await engine?.close();
});

describe('a decoupled Python model whose execute returned before its requests were final', () => {
  it('takes the next request, which may end an earlier one through its sender', async () => {
    const first = collecting(1);
    await expect.poll(() => first.ys.length, { timeout: 15_000 }).toBe(1);
    const second = collecting(7);
    const [a, b] = await Promise.all([first.result, second.result]);
    expect(a.status).toBe('completed');
    expect(b.status).toBe('completed');
    expect(first.ys).toEqual([first.ys[0], 700]);
    expect(second.ys).toEqual([first.ys[0]]);
    // As Triton marks them: the response sent with FINAL is final itself; a FINAL sent alone is a flags-only final.
    expect(first.calls).toEqual([
      [false, 'Y'],
      [true, 'Y'],
    ]);
    expect(second.calls).toEqual([
      [false, 'Y'],
      [true, ''],
    ]);
  });

  it('a request cancelled after execute returned is given up without stopping the process', async () => {
    const abort = new AbortController();
    const open = collecting(2, { signal: abort.signal });
    await expect.poll(() => open.ys.length, { timeout: 15_000 }).toBe(1);
    const pid = open.ys[0];
    abort.abort();
    expect((await open.result).status).not.toBe('completed');
    // Past the time after which a cancelled execute that never returned gets its process killed.
    await new Promise((r) => setTimeout(r, 2500));
    const next = collecting(9);
    expect((await next.result).status).toBe('completed');
    expect(next.ys).toEqual([pid]);
  });
});
