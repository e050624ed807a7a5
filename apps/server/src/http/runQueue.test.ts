// KServe runs over maxConcurrentRuns wait for a slot, as Triton queues requests, instead of being refused.
import { describe, expect, it } from 'vitest';
import { testServerPerFile } from '../testing/testServerPerFile.ts';

const s = testServerPerFile({ limits: { maxConcurrentRuns: 1, maxQueuedRuns: 1 } });
const body = JSON.stringify({ inputs: [{ name: 'x', datatype: 'FP32', shape: [1, 64], data: new Array(64).fill(1) }] });
const infer = (signal?: AbortSignal) =>
  fetch(`${s.url}/v2/models/extractor/infer`, { method: 'POST', body, ...(signal ? { signal } : {}) });

/** Resolves once `n` runs wait for a slot (a hang guard, not a timing). */
async function untilWaiting(n: number): Promise<void> {
  for (let i = 0; i < 1000 && s.studio.runsWaiting !== n; i++) await new Promise((r) => setTimeout(r, 10));
  expect(s.studio.runsWaiting).toBe(n);
}

describe('runs over maxConcurrentRuns', () => {
  it('an infer waits while every slot is held and runs when one is released; past maxQueuedRuns it gets 503', async () => {
    const held = s.studio.acquireRun();
    const first = infer();
    await untilWaiting(1);
    const second = await infer();
    expect(second.status).toBe(503);
    expect(((await second.json()) as { error: string }).error).toMatch(/maxQueuedRuns=1/);
    const metrics = await (await fetch(`${s.url}/metrics`)).text();
    expect(metrics).toMatch(/^studio_runs_waiting 1$/m);
    held();
    const answered = await first;
    expect(answered.status).toBe(200);
    const out = (await answered.json()) as { outputs: { name: string; shape: number[] }[] };
    expect(out.outputs[0]).toMatchObject({ name: 'feat', shape: [1, 256] });
    expect([s.studio.runsInFlight, s.studio.runsWaiting]).toEqual([0, 0]);
  });

  it('a client that goes away while its run waits leaves the queue', async () => {
    const held = s.studio.acquireRun();
    const gone = new AbortController();
    const waiting = infer(gone.signal).catch((err: Error) => err);
    await untilWaiting(1);
    gone.abort();
    expect(await waiting).toBeInstanceOf(Error);
    await untilWaiting(0);
    held();
    expect((await infer()).status).toBe(200);
  });
});
