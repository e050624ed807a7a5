import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Tensor } from '@ensemble-studio/core';
import { DEFAULT_REPO, startServer, type RunningServer } from '../main.ts';
import { tritonJsonText } from './kserveTensors.ts';

let s: RunningServer;
beforeAll(async () => {
  s = await startServer({ repo: DEFAULT_REPO, port: 0, host: '127.0.0.1', webDist: '/nonexistent' });
}, 120_000);
afterAll(() => s?.close());

/** A binary-extension infer body for `python_text_detect`: a blank-ish h×w RGB page. */
function pageBody(h: number, w: number): { body: Buffer; headerLength: number } {
  const header = Buffer.from(
    JSON.stringify({
      inputs: [{ name: 'image', datatype: 'UINT8', shape: [h, w, 3], parameters: { binary_data_size: h * w * 3 } }],
    }),
  );
  return { body: Buffer.concat([header, Buffer.alloc(h * w * 3, 255)]), headerLength: header.byteLength };
}

/**
 * Another client asks /v2/health/ready at the moment a response is handed over to be written; its answer is noted
 * in `order` as 'health' (before the large response's own entry when that is written off the main thread).
 */
function askHealthWhenWriting(order: string[]): { answered: () => Promise<void> | undefined; restore: () => void } {
  const bodies = s.studio.bodies;
  const write = bodies.response.bind(bodies);
  let health: Promise<void> | undefined;
  bodies.response = (...args) => {
    health = fetch(`${s.url}/v2/health/ready`).then(() => void order.push('health'));
    return write(...args);
  };
  return {
    answered: () => health,
    restore: () => {
      bodies.response = write;
    },
  };
}

describe('a large JSON infer response', () => {
  it('is written off the main thread: a request that arrives meanwhile is answered first', async () => {
    const order: string[] = [];
    const other = askHealthWhenWriting(order);
    try {
      // Its probability map: 4.2 M numbers as JSON (~600 ms of JSON.stringify on the main thread).
      const { body, headerLength } = pageBody(2048, 2048);
      const r = await fetch(`${s.url}/v2/models/python_text_detect/infer`, {
        method: 'POST',
        headers: {
          'content-type': 'application/octet-stream',
          'inference-header-content-length': String(headerLength),
        },
        body,
      });
      order.push(`infer ${r.status}`);
      const json = (await r.json()) as { outputs: { name: string; shape: number[]; data: number[] }[] };
      expect(json.outputs[0]!.shape).toEqual([2048, 2048]);
      expect(json.outputs[0]!.data).toHaveLength(2048 * 2048);
      await other.answered();
    } finally {
      other.restore();
    }
    expect(order).toEqual(['health', 'infer 200']);
  });

  it('from /generate is written off the main thread too', async () => {
    const order: string[] = [];
    const other = askHealthWhenWriting(order);
    try {
      const row = `[${Array.from({ length: 1024 }, () => '[255,255,255]').join(',')}]`;
      const r = await fetch(`${s.url}/v2/models/python_text_detect/generate`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: `{"image":[${Array.from({ length: 1024 }, () => row).join(',')}]}`,
      });
      order.push(`generate ${r.status}`);
      const json = (await r.json()) as Record<string, unknown>;
      expect(json.model_name).toBe('python_text_detect');
      expect(Object.values(json).find(Array.isArray)).toHaveLength(1024 * 1024);
      await other.answered();
    } finally {
      other.restore();
    }
    expect(order).toEqual(['health', 'generate 200']);
  });

  it('reads as the main thread would write it, and leaves the buffers of binary outputs in place', async () => {
    const t: Tensor = { datatype: 'FP32', shape: [3], data: Float32Array.of(1.5, NaN, -Infinity) };
    const head = { model_name: 'm', model_version: '1' };
    const bytes = await s.studio.bodies.response(
      'infer',
      head,
      [
        ['y', t],
        ['z', t],
      ],
      [t],
    );
    const inline = tritonJsonText({
      ...head,
      outputs: ['y', 'z'].map((name) => ({ name, datatype: 'FP32', shape: [3], data: [1.5, NaN, -Infinity] })),
    });
    expect(Buffer.from(bytes).toString()).toBe(inline);
    // Still readable here: `t` is also sent as binary data after the header.
    expect(Array.from(t.data as Float32Array)).toEqual([1.5, NaN, -Infinity]);
  });
});
