import { describe, expect, it } from 'vitest';
import { call } from '../testing/testServer.ts';
import { testServerPerFile } from '../testing/testServerPerFile.ts';

const s = testServerPerFile();

const feat = { name: 'feat', datatype: 'FP32', shape: [1, 256] };
const data = new Array(256).fill(0.5);

/** A binary-extension body: the JSON header, then `bytes` of tensor data. */
async function binaryInfer(header: object, bytes: number) {
  const json = Buffer.from(JSON.stringify(header));
  const r = await fetch(`${s.url}/v2/models/head/infer`, {
    method: 'POST',
    headers: { 'content-type': 'application/octet-stream', 'inference-header-content-length': String(json.length) },
    body: Buffer.concat([json, Buffer.alloc(bytes)]),
  });
  return { status: r.status, json: (await r.json()) as { error?: string } };
}

const ONE_OF =
  "Input must set only one of the following fields: 'data', 'binary_data_size' in 'parameters', 'shared_memory_region' in 'parameters'. But";

describe("an infer input's data in one place only, as Triton checks it", () => {
  it('refuses data beside binary_data_size (the binary bytes were used and data ignored)', async () => {
    const r = await binaryInfer({ inputs: [{ ...feat, data, parameters: { binary_data_size: 1024 } }] }, 1024);
    expect([r.status, r.json.error]).toEqual([400, `${ONE_OF} set 'data' 'binary_data_size'`]);
  });

  it('refuses an input with no data at all', async () => {
    const r = await call(`${s.url}/v2/models/head/infer`, 'POST', { inputs: [feat] });
    expect([r.status, r.json.error]).toEqual([400, `${ONE_OF} no field is set`]);
  });

  it('refuses shared memory for an input or an output: the studio registers no regions', async () => {
    const region = { shared_memory_region: 'r0', shared_memory_byte_size: 1024 };
    const input = await call(`${s.url}/v2/models/head/infer`, 'POST', { inputs: [{ ...feat, parameters: region }] });
    expect([input.status, input.json.error]).toEqual([404, "Unable to find shared memory region: 'r0'"]);
    const output = await call(`${s.url}/v2/models/head/infer`, 'POST', {
      inputs: [{ ...feat, data }],
      outputs: [{ name: 'logits', parameters: region }],
    });
    expect([output.status, output.json.error]).toEqual([404, "Unable to find shared memory region: 'r0'"]);
    const both = await call(`${s.url}/v2/models/head/infer`, 'POST', {
      inputs: [{ ...feat, data }],
      outputs: [{ name: 'logits', parameters: { ...region, classification: 2 } }],
    });
    expect([both.status, both.json.error]).toEqual([
      400,
      "Output can't set both 'shared_memory_region' and 'classification'",
    ]);
  });
});
