import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Tensor } from '@ensemble-studio/core';
import { streamAll } from '../testing/grpcTestClient.ts';
import { startGrpcTestServer, type GrpcTestServer } from '../testing/grpcTestServer.ts';
import { largeOutputValues, writeLargeOutputModels } from '../testing/largeOutputModels.ts';
import { makeTestRepository } from '../testing/testRepository.ts';
import { classify } from './classification.ts';

// Classes of outputs too large to classify on the main thread: made in the body worker, the same as made here.

const N = 300_000;
const LABELS = 1000;
let t: GrpcTestServer;
beforeAll(async () => {
  const repo = makeTestRepository();
  writeLargeOutputModels(repo, LABELS);
  t = await startGrpcTestServer({ repo });
});
afterAll(() => t?.close());

const labels = Array.from({ length: LABELS }, (_, i) => `class ${i}`);
const expected = (k: number) =>
  classify({ datatype: 'FP32', shape: [N], data: largeOutputValues(N) }, k, false, labels).data as string[];

/** Counts the classifications handed to the body worker; `onFirst` runs when the first is. */
function watchWorker(onFirst: () => void = () => undefined): { count: () => number; restore: () => void } {
  const bodies = t.s.studio.bodies;
  const classifyThere = bodies.classify.bind(bodies);
  let n = 0;
  bodies.classify = (job) => {
    if (n++ === 0) onFirst();
    return classifyThere(job);
  };
  return { count: () => n, restore: () => void (bodies.classify = classifyThere) };
}

const inferBody = (size: number, output: Record<string, unknown>) =>
  JSON.stringify({ inputs: [{ name: 'SIZE', datatype: 'INT64', shape: [1], data: [size] }], outputs: [output] });

/** The strings of raw BYTES contents. */
function strings(raw: Uint8Array): string[] {
  const b = Buffer.from(raw);
  const out: string[] = [];
  for (let at = 0; at < b.length; at += 4 + b.readUInt32LE(at))
    out.push(b.toString('utf8', at + 4, at + 4 + b.readUInt32LE(at)));
  return out;
}

describe('classification of a large output', () => {
  it('over HTTP as JSON, every class asked for: made in the worker while other requests are answered', async () => {
    const order: string[] = [];
    let health: Promise<void> | undefined;
    const worker = watchWorker(() => {
      health = fetch(`${t.s.url}/v2/health/ready`).then(() => void order.push('health'));
    });
    let json: { outputs: { name: string; datatype: string; shape: number[]; data: string[] }[] };
    try {
      const r = await fetch(`${t.s.url}/v2/models/large_output/infer`, {
        method: 'POST',
        body: inferBody(N, { name: 'OUT', parameters: { classification: N } }),
      });
      order.push(`infer ${r.status}`);
      json = (await r.json()) as typeof json;
      await health;
    } finally {
      worker.restore();
    }
    expect(order).toEqual(['health', 'infer 200']);
    expect(worker.count()).toBe(1);
    const out = json.outputs[0]!;
    expect([out.name, out.datatype, out.shape]).toEqual(['OUT', 'BYTES', [N]]);
    expect(out.data).toEqual(expected(N));
  });

  it('over HTTP, a few classes as JSON and as binary data, with their labels', async () => {
    const worker = watchWorker();
    try {
      const few = await fetch(`${t.s.url}/v2/models/large_output/infer`, {
        method: 'POST',
        body: inferBody(N, { name: 'OUT', parameters: { classification: 3 } }),
      });
      const json = (await few.json()) as { outputs: { data: string[] }[] };
      expect(json.outputs[0]!.data).toEqual(expected(3));
      const binary = await fetch(`${t.s.url}/v2/models/large_output/infer`, {
        method: 'POST',
        body: inferBody(N, { name: 'OUT', parameters: { classification: 2000, binary_data: true } }),
      });
      const body = Buffer.from(await binary.arrayBuffer());
      const headerLength = Number(binary.headers.get('inference-header-content-length'));
      const header = JSON.parse(body.subarray(0, headerLength).toString()) as { outputs: Tensor[] };
      expect(header.outputs[0]).toMatchObject({ name: 'OUT', datatype: 'BYTES', shape: [2000] });
      expect(strings(body.subarray(headerLength))).toEqual(expected(2000));
    } finally {
      worker.restore();
    }
    expect(worker.count()).toBe(2);
    // At least one of the classes has a label (the file labels the first LABELS indices).
    expect(expected(2000).some((c) => c.includes(':class '))).toBe(true);
  });

  it('over gRPC: ModelInfer, and a stream whose responses keep their order', async () => {
    const worker = watchWorker();
    try {
      const res = await t.c.call('ModelInfer', {
        model_name: 'large_output',
        inputs: [{ name: 'SIZE', datatype: 'INT64', shape: [1] }],
        raw_input_contents: [Buffer.from(BigInt64Array.of(BigInt(N)).buffer)],
        outputs: [{ name: 'OUT', parameters: { classification: { int64_param: 5000 } } }],
      });
      expect(res.outputs[0].shape.map(Number)).toEqual([5000]);
      expect(strings(res.raw_output_contents[0])).toEqual(expected(5000));
      const sizes = [100_000, 5, 100_000];
      const messages = await streamAll(t.c, [
        {
          model_name: 'large_stream',
          inputs: [{ name: 'SIZES', datatype: 'INT64', shape: [3] }],
          raw_input_contents: [Buffer.from(BigInt64Array.from(sizes.map(BigInt)).buffer)],
          outputs: [{ name: 'OUT', parameters: { classification: { int64_param: 2 } } }, { name: 'INDEX' }],
        },
      ]);
      expect(messages.map((m) => m.error_message)).toEqual(['', '', '']);
      // Response i holds i, i+1, …, i+size-1: its top two are at the last two indices.
      expect(messages.map((m) => strings(m.infer_response!.raw_output_contents[0]!))).toEqual(
        sizes.map((size, i) => [
          `${(i + size - 1).toFixed(6)}:${size - 1}`,
          `${(i + size - 2).toFixed(6)}:${size - 2}`,
        ]),
      );
    } finally {
      worker.restore();
    }
    // The two large responses of the stream and ModelInfer's output.
    expect(worker.count()).toBe(3);
  });

  it('classifies a small output here, and refuses what Triton refuses from the worker with its words', async () => {
    const worker = watchWorker();
    try {
      const small = await fetch(`${t.s.url}/v2/models/large_output/infer`, {
        method: 'POST',
        body: inferBody(10, { name: 'OUT', parameters: { classification: 2 } }),
      });
      expect(((await small.json()) as { outputs: { data: string[] }[] }).outputs[0]!.data).toEqual([
        // OUT is (9 i) mod 10 here.
        '9.000000:1:class 1',
        '8.000000:2:class 2',
      ]);
      const huge = await fetch(`${t.s.url}/v2/models/large_output/infer`, {
        method: 'POST',
        body: inferBody(1_000_001, { name: 'OUT', parameters: { classification: 1 } }),
      });
      expect([huge.status, await huge.json()]).toEqual([400, { error: 'classification output tensor too large' }]);
    } finally {
      worker.restore();
    }
    expect(worker.count()).toBe(1);
  });
});
