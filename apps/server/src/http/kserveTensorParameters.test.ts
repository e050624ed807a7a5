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

const NOT_BOOL = 'attempt to access JSON non-boolean as boolean';
const NOT_UINT = 'attempt to access JSON non-unsigned-integer as unsigned-integer';

describe('parameters Triton reads with a type of its own, refused with another', () => {
  const infer = (body: object) =>
    call(`${s.url}/v2/models/head/infer`, 'POST', { inputs: [{ ...feat, data }], ...body });

  it('refuses a request parameter of the wrong type (it was taken, read as false or ignored)', async () => {
    const cases: [Record<string, unknown>, string][] = [
      [{ binary_data_output: 'true' }, `Unable to parse 'binary_data_output': ${NOT_BOOL}`],
      [{ sequence_start: 1 }, `Unable to parse 'sequence_start': ${NOT_BOOL}`],
      [{ sequence_end: 'false' }, `Unable to parse 'sequence_end': ${NOT_BOOL}`],
      [{ priority: -1 }, `Unable to parse 'priority': ${NOT_UINT}`],
      [{ priority: 'high' }, `Unable to parse 'priority': ${NOT_UINT}`],
      [{ timeout: 1.5 }, `Unable to parse 'timeout': ${NOT_UINT}`],
      [{ timeout: 2 ** 64 }, `Unable to parse 'timeout': ${NOT_UINT}`],
      [
        { triton_enable_empty_final_response: true },
        "parameter keys starting with 'triton_' are reserved for Triton usage and should not be specified.",
      ],
    ];
    for (const [parameters, error] of cases) {
      const r = await infer({ parameters });
      expect([r.status, r.json.error], JSON.stringify(parameters)).toEqual([400, error]);
    }
    const typed = await infer({
      parameters: { priority: 2 ** 60, timeout: 0, binary_data_output: false, custom: 'x' },
    });
    expect(typed.status).toBe(200);
  });

  it('refuses an id that is not a string and parameters that are not an object (they were dropped)', async () => {
    for (const id of [5, null, {}, true]) {
      const r = await infer({ id });
      expect([r.status, r.json.error], JSON.stringify(id)).toEqual([
        400,
        "Unable to parse 'id': attempt to access JSON non-string as string",
      ]);
    }
    for (const parameters of ['fast', [], null]) {
      const r = await infer({ parameters });
      expect([r.status, r.json.error], JSON.stringify(parameters)).toEqual([
        400,
        'failed to get request params.: attempt to access JSON non-object as object',
      ]);
    }
    const named = await infer({ id: 'r1', parameters: {} });
    expect([named.status, named.json.id]).toEqual([200, 'r1']);
  });

  it("refuses an output's binary_data that is not a boolean, and a malformed offset or size without a region", async () => {
    const cases: [Record<string, unknown>, string][] = [
      [{ binary_data: 1 }, `Unable to parse 'binary_data': ${NOT_BOOL}`],
      [{ shared_memory_offset: 'x' }, `Unable to parse 'shared_memory_offset': ${NOT_UINT}`],
      [{ shared_memory_byte_size: -1 }, `Unable to parse 'shared_memory_byte_size': ${NOT_UINT}`],
    ];
    for (const [parameters, error] of cases) {
      const r = await infer({ outputs: [{ name: 'logits', parameters }] });
      expect([r.status, r.json.error], JSON.stringify(parameters)).toEqual([400, error]);
    }
    const sized = await infer({ outputs: [{ name: 'logits', parameters: { shared_memory_byte_size: 64 } }] });
    expect(sized.status).toBe(200);
  });
});
