import { describe, expect, it } from 'vitest';
import type { Tensor } from '@ensemble-studio/core';
import { writeLargeOutputModels } from '../testing/largeOutputModels.ts';
import { makeTestRepository } from '../testing/testRepository.ts';
import { testServerPerFile } from '../testing/testServerPerFile.ts';
import { generateBytes } from './generateResponses.ts';

const repo = makeTestRepository();
writeLargeOutputModels(repo, 1);
const s = testServerPerFile({ repo });

/** Counts the responses handed to the body worker; `onFirst` runs when the first is. */
function watchWorkerResponses(onFirst: () => void = () => undefined): { count: () => number; restore: () => void } {
  const bodies = s.studio.bodies;
  const write = bodies.response.bind(bodies);
  let n = 0;
  bodies.response = (...args) => {
    if (n++ === 0) onFirst();
    return write(...args);
  };
  return { count: () => n, restore: () => void (bodies.response = write) };
}

const post = (path: string, body: unknown) =>
  fetch(`${s.url}/v2/models/large_stream/${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });

/** The `data:` events of an SSE body, parsed. */
function events(body: string): Record<string, unknown>[] {
  expect(body.endsWith('\n\n')).toBe(true);
  return body
    .split('\n\n')
    .filter((e) => e !== '')
    .map((e) => {
      expect(e.startsWith('data: ')).toBe(true);
      return JSON.parse(e.slice('data: '.length)) as Record<string, unknown>;
    });
}

describe('generate_stream and /generate of a model streaming large responses', () => {
  it('sends every event in the order the model sent it, large ones written in the body worker', async () => {
    const worker = watchWorkerResponses();
    let text: string;
    try {
      const r = await post('generate_stream', { SIZES: [100_000, 3, 70_000, 1] });
      expect(r.headers.get('content-type')).toBe('text/event-stream; charset=utf-8');
      text = await r.text();
    } finally {
      worker.restore();
    }
    expect(worker.count()).toBe(2);
    expect(text.startsWith('data: {"model_name":"large_stream","model_version":"1","OUT":[0,1,2,')).toBe(true);
    const got = events(text);
    expect(got.map((e) => e.INDEX)).toEqual([0, 1, 2, 3]);
    expect(got.map((e) => (Array.isArray(e.OUT) ? e.OUT.length : e.OUT))).toEqual([100_000, 3, 70_000, 3]);
    const third = got[2]!.OUT as number[];
    expect([third[0], third.at(-1)]).toEqual([2, 70_001]);
  });

  it('a request that comes while a large event is made is answered before the stream ends', async () => {
    const order: string[] = [];
    let health: Promise<void> | undefined;
    const worker = watchWorkerResponses(() => {
      health = fetch(`${s.url}/v2/health/ready`).then(() => void order.push('health'));
    });
    try {
      // Three events of 2 M numbers: as JSON, hundreds of milliseconds each on the main thread.
      const r = await post('generate_stream', { SIZES: [2_000_000, 2_000_000, 2_000_000] });
      const got = events(await r.text());
      order.push('stream ended');
      expect(got.map((e) => (e.OUT as number[]).length)).toEqual([2_000_000, 2_000_000, 2_000_000]);
      await health;
    } finally {
      worker.restore();
    }
    expect(order).toEqual(['health', 'stream ended']);
  });

  it("/generate answers a decoupled model's one large response from the worker, and refuses two", async () => {
    const worker = watchWorkerResponses();
    try {
      const one = await post('generate', { SIZES: [200_000] });
      expect(one.headers.get('content-type')).toBe('application/json; charset=utf-8');
      const json = (await one.json()) as { model_name: string; OUT: number[]; INDEX: number };
      expect([json.model_name, json.OUT.length, json.OUT.at(-1), json.INDEX]).toEqual([
        'large_stream',
        200_000,
        199_999,
        0,
      ]);
      const two = await post('generate', { SIZES: [200_000, 200_000] });
      expect([two.status, await two.json()]).toEqual([
        400,
        { error: 'generate expects model to produce exactly 1 response' },
      ]);
    } finally {
      worker.restore();
    }
    // Each request's first response is written; the second request's second one is only counted.
    expect(worker.count()).toBe(2);
  });

  it("copies a response that comes during the run: the engine's buffers stay where they are", async () => {
    const data = new Float32Array(100_000).map((_, i) => i);
    const t: Tensor = { datatype: 'FP32', shape: [100_000], data };
    const bytes = await generateBytes(s.studio.bodies, 'event', { model_name: 'm' }, { y: t }, false);
    expect(data.byteLength).toBe(400_000);
    expect(data[99_999]).toBe(99_999);
    const text = Buffer.from(bytes).toString();
    expect(text.startsWith('data: {"model_name":"m","y":[0,1,2,')).toBe(true);
    expect(text.endsWith(',99999]}\n\n')).toBe(true);
  });
});
