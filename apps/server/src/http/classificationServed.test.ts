// Triton's classification extension on a served model, over HTTP and gRPC, with the labels of its config's
// label_filename: the same classes as the top of the model's own output.
import { appendFileSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGrpcTestServer, type GrpcTestServer } from '../testing/grpcTestServer.ts';
import { makeTestRepository } from '../testing/testRepository.ts';
import { call } from '../testing/testServer.ts';

const LABELS = Array.from({ length: 16 }, (_, i) => `class-${i}`);
let t: GrpcTestServer;
beforeAll(async () => {
  const repo = makeTestRepository();
  const config = join(repo, 'head', 'config.pbtxt');
  writeFileSync(
    config,
    readFileSync(config, 'utf8').replace('dims: [ 16 ] }', 'dims: [ 16 ] label_filename: "labels.txt" }'),
  );
  appendFileSync(join(repo, 'head', 'labels.txt'), `${LABELS.join('\n')}\n`);
  t = await startGrpcTestServer({ repo });
});
afterAll(() => t?.close());

const feat = Array.from({ length: 2 * 256 }, (_, i) => Math.sin(i));
const input = { name: 'feat', datatype: 'FP32', shape: [2, 256], data: feat };

/** The top `k` of each row of head's own logits, as Triton's classification strings. */
async function expectedClasses(k: number): Promise<string[]> {
  const r = await call(`${t.s.url}/v2/models/head/infer`, 'POST', { inputs: [input] });
  const logits = r.json.outputs[0].data as number[];
  return [0, 1].flatMap((row) =>
    logits
      .slice(row * 16, row * 16 + 16)
      .map((v, i) => ({ v: Math.fround(v), i }))
      .sort((a, b) => b.v - a.v || a.i - b.i)
      .slice(0, k)
      .map(({ v, i }) => `${v.toFixed(6)}:${i}:${LABELS[i]}`),
  );
}

describe('classification outputs', () => {
  it('over HTTP: BYTES [batch, k] of value:index:label', async () => {
    const r = await call(`${t.s.url}/v2/models/head/infer`, 'POST', {
      inputs: [input],
      outputs: [{ name: 'logits', parameters: { classification: 3 } }],
    });
    expect(r.status, r.text).toBe(200);
    expect(r.json.outputs[0]).toMatchObject({ name: 'logits', datatype: 'BYTES', shape: [2, 3] });
    expect(r.json.outputs[0].data).toEqual(await expectedClasses(3));
  });

  it('over gRPC: the same classes as raw BYTES', async () => {
    const res = await t.c.call('ModelInfer', {
      model_name: 'head',
      inputs: [{ name: 'feat', datatype: 'FP32', shape: [2, 256] }],
      raw_input_contents: [Buffer.from(Float32Array.from(feat).buffer)],
      outputs: [{ name: 'logits', parameters: { classification: { int64_param: 2 } } }],
    });
    expect(res.outputs[0]).toMatchObject({ name: 'logits', datatype: 'BYTES' });
    expect(res.outputs[0].shape.map(Number)).toEqual([2, 2]);
    const raw = Buffer.from(res.raw_output_contents[0]);
    const strings: string[] = [];
    for (let at = 0; at < raw.length;) {
      const n = raw.readUInt32LE(at);
      strings.push(raw.subarray(at + 4, at + 4 + n).toString('utf8'));
      at += 4 + n;
    }
    expect(strings).toEqual(await expectedClasses(2));
  });

  it("refuses a classification that is not an unsigned integer, with Triton's words", async () => {
    const r = await call(`${t.s.url}/v2/models/head/infer`, 'POST', {
      inputs: [input],
      outputs: [{ name: 'logits', parameters: { classification: -1 } }],
    });
    expect(r.status).toBe(400);
    expect(r.json.error).toMatch(/^Unable to set 'classification'/);
    await expect(
      t.c.call('ModelInfer', {
        model_name: 'head',
        inputs: [{ name: 'feat', datatype: 'FP32', shape: [2, 256] }],
        raw_input_contents: [Buffer.from(Float32Array.from(feat).buffer)],
        outputs: [{ name: 'logits', parameters: { classification: { string_param: '2' } } }],
      }),
    ).rejects.toThrow(/invalid value type for 'classification' parameter, expected int64_param/);
  });
});
