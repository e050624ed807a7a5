import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { GraphDoc } from '@ensemble-studio/core';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { makeTestRepository } from '../testing/testRepository.ts';
import { call, startTestServer } from '../testing/testServer.ts';

let s: Awaited<ReturnType<typeof startTestServer>>;
beforeAll(async () => {
  s = await startTestServer();
});
afterAll(async () => s?.close());

const x64 = Array.from({ length: 64 }, (_, i) => (i % 5) / 5);
const infer = (model: string, body: unknown) => call(`${s.url}/v2/models/${model}/infer`, 'POST', body);

describe('KServe v2 metadata', () => {
  it('health, server metadata, repository index', async () => {
    expect((await call(`${s.url}/v2/health/live`)).status).toBe(200);
    expect((await call(`${s.url}/v2/health/ready`)).text).toBe('');
    expect((await call(`${s.url}/v2`)).json.extensions).toContain('sequence');
    const index = (await call(`${s.url}/v2/repository/index`, 'POST')).json as { name: string; state: string }[];
    expect(index.find((m) => m.name === 'bad')?.state).toBe('UNAVAILABLE');
    expect(index.find((m) => m.name === 'pipe')?.state).toBe('READY');
  });

  it('model metadata with full shapes (batch dim for batching models) for models and graphs', async () => {
    expect((await call(`${s.url}/v2/models/head`)).json).toEqual({
      name: 'head',
      versions: ['1'],
      platform: 'onnxruntime_onnx',
      inputs: [{ name: 'feat', datatype: 'FP32', shape: [-1, 256] }],
      outputs: [{ name: 'logits', datatype: 'FP32', shape: [-1, 16] }],
    });
    expect((await call(`${s.url}/v2/models/pipe/versions/1`)).json.inputs).toEqual([
      { name: 'x', datatype: 'FP32', shape: [-1, 64] },
    ]);
    expect((await call(`${s.url}/v2/models/pipe/versions/3`)).status).toBe(404);
    const missing = await call(`${s.url}/v2/models/nope`);
    expect([missing.status, missing.json]).toEqual([404, { error: "Request for unknown model: 'nope' is not found" }]);
  });

  it('ready is 200 for loadable models, 4xx otherwise', async () => {
    expect((await call(`${s.url}/v2/models/head/ready`)).status).toBe(200);
    expect((await call(`${s.url}/v2/models/bad/ready`)).status).toBe(400);
    expect((await call(`${s.url}/v2/models/nope/ready`)).status).toBe(400);
  });

  it('config is the JSON ModelConfig with proto field names; graphs get their compiled ensemble config', async () => {
    const head = (await call(`${s.url}/v2/models/head/config`)).json;
    expect(head).toMatchObject({
      name: 'head',
      max_batch_size: 8,
      input: [{ name: 'feat', data_type: 'TYPE_FP32', dims: [256] }],
    });
    const pipe = (await call(`${s.url}/v2/models/pipe/config`)).json;
    expect(pipe.platform).toBe('ensemble');
    expect(pipe.ensemble_scheduling.step.map((st: { model_name: string }) => st.model_name)).toEqual([
      'extractor',
      'head',
    ]);
  });
});

describe('KServe v2 infer', () => {
  it('runs a graph with flat or nested data and returns the same result', async () => {
    const flat = await infer('pipe', {
      id: 'a',
      inputs: [{ name: 'x', datatype: 'FP32', shape: [2, 64], data: [...x64, ...x64] }],
    });
    expect(flat.status).toBe(200);
    expect(flat.json).toMatchObject({ model_name: 'pipe', model_version: '1', id: 'a' });
    expect(flat.json.outputs[0]).toMatchObject({ name: 'logits', datatype: 'FP32', shape: [2, 16] });
    const nested = await infer('pipe', { inputs: [{ name: 'x', datatype: 'FP32', shape: [2, 64], data: [x64, x64] }] });
    expect(nested.json.outputs[0].data).toEqual(flat.json.outputs[0].data);
  });

  it('runs a plain model (batched) and honours requested outputs', async () => {
    const r = await infer('head', {
      inputs: [{ name: 'feat', datatype: 'FP32', shape: [3, 256], data: new Array(768).fill(0.5) }],
      outputs: [{ name: 'logits' }],
    });
    expect(r.json.outputs[0].shape).toEqual([3, 16]);
    expect(
      (
        await infer('head', {
          inputs: [{ name: 'feat', datatype: 'FP32', shape: [1, 256], data: new Array(256).fill(0.5) }],
          outputs: [{ name: 'nope' }],
        })
      ).status,
    ).toBe(400);
  });

  it('binary tensor extension: binary input and binary output', async () => {
    const input = new Float32Array([...x64, ...x64]);
    const header = JSON.stringify({
      inputs: [{ name: 'x', datatype: 'FP32', shape: [2, 64], parameters: { binary_data_size: input.byteLength } }],
      outputs: [{ name: 'logits', parameters: { binary_data: true } }],
    });
    const r = await fetch(`${s.url}/v2/models/pipe/infer`, {
      method: 'POST',
      headers: { 'content-type': 'application/octet-stream', 'inference-header-content-length': String(header.length) },
      body: Buffer.concat([Buffer.from(header), Buffer.from(input.buffer)]),
    });
    expect(r.status).toBe(200);
    const body = Buffer.from(await r.arrayBuffer());
    const n = Number(r.headers.get('inference-header-content-length'));
    const json = JSON.parse(body.subarray(0, n).toString());
    expect(json.outputs[0].parameters.binary_data_size).toBe(2 * 16 * 4);
    const values = new Float32Array(body.buffer.slice(body.byteOffset + n, body.byteOffset + n + 128));
    const reference = await infer('pipe', {
      inputs: [{ name: 'x', datatype: 'FP32', shape: [2, 64], data: [...x64, ...x64] }],
    });
    expect(Array.from(values)).toEqual(reference.json.outputs[0].data);
  });

  it.each([
    [
      { inputs: [{ name: 'y', datatype: 'FP32', shape: [1, 64], data: x64 }] },
      "unexpected inference input 'y' for model 'pipe'",
    ],
    [
      { inputs: [{ name: 'x', datatype: 'FP64', shape: [1, 64], data: x64 }] },
      "inference input 'x' data-type is 'FP64', but model 'pipe' expects 'FP32'",
    ],
    [
      { inputs: [{ name: 'x', datatype: 'FP32', shape: [1, 63], data: x64.slice(1) }] },
      "unexpected shape for input 'x' for model 'pipe'. Expected [-1,64], got [1,63]",
    ],
    [
      { inputs: [{ name: 'x', datatype: 'FP32', shape: [2, 64], data: x64 }] },
      "input 'x' has 64 elements but shape [2,64] needs 128",
    ],
    [{ inputs: [] }, "expected 1 inputs but got 0 inputs for model 'pipe'"],
    [{ inputs: [{ name: 'x', datatype: 'FLOAT', shape: [1], data: [1] }] }, 'input \'x\' has unknown datatype "FLOAT"'],
    [
      { inputs: [{ name: 'x', datatype: 'FP32', shape: [1, 64], data: ['a', ...x64.slice(1)] }] },
      "input 'x' element 0 is not a valid FP32 value",
    ],
    [
      { inputs: [{ name: 'x', datatype: 'FP32', shape: [100000, 100000], data: [] }] },
      'over the limit maxTensorElements=',
    ],
    ['{"inputs": [', 'failed to parse the request JSON buffer'],
  ])('rejects %j', async (body, message) => {
    const r = await infer('pipe', body);
    expect(r.status).toBe(400);
    expect(r.json.error).toContain(message);
  });

  it("starts core's request messages with the request's id, as Triton's LogRequest() does", async () => {
    const shape = { name: 'x', datatype: 'FP32', shape: [1, 63], data: x64.slice(1) };
    expect((await infer('pipe', { id: 'abc', inputs: [shape] })).json.error).toBe(
      "[request id: abc] unexpected shape for input 'x' for model 'pipe'. Expected [-1,64], got [1,63]. ",
    );
    expect((await infer('pipe', { inputs: [] })).json.error).toMatch(/^\[request id: <id_unknown>\] expected 1 inputs/);
    // The model's lookup of an input or output name has no prefix.
    expect((await infer('pipe', { id: 'abc', inputs: [{ ...shape, name: 'y' }] })).json.error).toBe(
      "unexpected inference input 'y' for model 'pipe'",
    );
  });

  it('sequence parameters carry implicit state across requests of one sequence id', async () => {
    const req = (parameters: Record<string, unknown>) =>
      infer('acc', {
        parameters,
        inputs: [{ name: 'x', datatype: 'FP32', shape: [1, 8], data: new Array(8).fill(1) }],
      });
    expect((await req({ sequence_id: 41, sequence_start: true })).json.outputs[0].data[0]).toBe(1);
    expect((await req({ sequence_id: 41 })).json.outputs[0].data[0]).toBe(2);
    expect((await req({ sequence_id: 41, sequence_end: true })).json.outputs[0].data[0]).toBe(3);
    expect((await req({})).json.error).toBe(
      "inference request to model 'acc' must specify a non-zero or non-empty correlation ID",
    );
    // Past 2^53 - 1 JSON numbers round (2^64 and 2^64 + 1 would be one sequence): refused, as negative ids are.
    for (const id of [2 ** 64, 1e30, -1, 1.5]) {
      const r = await req({ sequence_id: id, sequence_start: true });
      expect(r.status, String(id)).toBe(400);
      expect(r.json.error).toMatch(/^Unable to parse 'sequence_id': it must be an integer from 1 to 9007199254740991/);
    }
    expect((await req({ sequence_id: 41 })).json.error).toMatch(
      /^inference request for sequence 41 to model 'acc' must specify the START flag on the first request of the sequence \(it is not active: a sequence also ends after END or 5 s without requests\)$/,
    );
  });

  it('refuses /infer on a decoupled graph as Triton does', async () => {
    const pipe = (await call(`${s.url}/api/graphs/pipe`)).json as GraphDoc;
    const nodes = pipe.nodes.map((n) =>
      n.kind === 'model' && n.id === 'head' ? { ...n, params: { ...n.params, settings: { decoupled: true } } } : n,
    );
    await call(`${s.url}/api/graphs/dec`, 'PUT', { ...pipe, name: 'dec', nodes });
    const r = await infer('dec', { inputs: [{ name: 'x', datatype: 'FP32', shape: [1, 64], data: x64 }] });
    expect(r.status).toBe(400);
    expect(r.json.error).toMatch(/^HTTP end point doesn't support models with decoupled transaction policy/);
  });
});

describe('generate extension', () => {
  it('generate_stream sends one SSE event per response; generate one JSON response', async () => {
    const r = await fetch(`${s.url}/v2/models/extractor/generate_stream`, {
      method: 'POST',
      body: JSON.stringify({ id: 'g1', x: [x64] }),
    });
    expect(r.headers.get('content-type')).toBe('text/event-stream; charset=utf-8');
    const events = (await r.text()).split('\n\n').filter(Boolean);
    expect(events).toHaveLength(1);
    const event = JSON.parse(events[0]!.replace(/^data: /, ''));
    expect(event).toMatchObject({ id: 'g1', model_name: 'extractor' });
    expect(event.feat).toHaveLength(256);
    const one = await call(`${s.url}/v2/models/extractor/generate`, 'POST', { x: [x64] });
    expect(one.json.feat).toEqual(event.feat);
  });

  it('errors before the stream starts are JSON with a 4xx status', async () => {
    const r = await call(`${s.url}/v2/models/extractor/generate_stream`, 'POST', { x: [x64.slice(1)] });
    expect(r.status).toBe(400);
    expect(r.json.error).toMatch(/^\[request id: <id_unknown>\] unexpected shape/);
    const named = await call(`${s.url}/v2/models/extractor/generate`, 'POST', { id: 'g2', x: [x64.slice(1)] });
    expect(named.json.error).toMatch(/^\[request id: g2\] unexpected shape/);
  });
});

describe('/metrics', () => {
  it('exposes Triton metric names with model and version labels', async () => {
    await infer('head', {
      inputs: [{ name: 'feat', datatype: 'FP32', shape: [1, 256], data: new Array(256).fill(0.5) }],
    });
    const r = await call(`${s.url}/metrics`);
    expect(r.headers.get('content-type')).toMatch(/^text\/plain/);
    for (const name of [
      'nv_inference_request_success',
      'nv_inference_count',
      'nv_inference_exec_count',
      'nv_inference_queue_duration_us',
      'nv_inference_compute_infer_duration_us',
    ]) {
      expect(r.text).toMatch(new RegExp(`^${name}\\{model="head",version="1"\\} \\d+$`, 'm'));
    }
    // Failures by Triton's reasons, labels in name order as prometheus-cpp writes them.
    for (const reason of ['REJECTED', 'CANCELED', 'BACKEND', 'OTHER'])
      expect(r.text).toMatch(
        new RegExp(`^nv_inference_request_failure\\{model="head",reason="${reason}",version="1"\\} \\d+$`, 'm'),
      );
    expect(r.text).toMatch(/^nv_inference_request_success\{model="pipe",version="1"\} [1-9]/m);
    expect(r.text).toMatch(/^nv_inference_active_sequences\{model="acc",version="1"\} \d+$/m);
  });
});

describe('/v2/models/{m}/config is the effective config Triton reports', () => {
  it("fills Triton's defaults for a model and prints every primitive field", async () => {
    const head = (await call(`${s.url}/v2/models/head/config`)).json;
    expect(head).toMatchObject({
      name: 'head',
      platform: 'onnxruntime_onnx',
      backend: 'onnxruntime',
      runtime: '',
      default_model_filename: 'model.onnx',
      version_policy: { latest: { num_versions: 1 } },
      max_batch_size: 8,
      batch_input: [],
      batch_output: [],
      model_warmup: [],
      parameters: {},
      instance_group: [
        { name: 'head', kind: 'KIND_CPU', count: 2, gpus: [], profile: [], passive: false, host_policy: '' },
      ],
      dynamic_batching: { preferred_batch_size: [8], max_queue_delay_microseconds: 100, preserve_ordering: false },
      optimization: {
        input_pinned_memory: { enable: true },
        output_pinned_memory: { enable: true },
        priority: 'PRIORITY_DEFAULT',
      },
    });
    expect(head.input[0]).toEqual({
      name: 'feat',
      data_type: 'TYPE_FP32',
      format: 'FORMAT_NONE',
      dims: [256],
      is_shape_tensor: false,
      allow_ragged_batch: false,
      optional: false,
      is_non_linear_format_io: false,
    });
    const acc = (await call(`${s.url}/v2/models/acc/config`)).json;
    expect(acc.sequence_batching.max_sequence_idle_microseconds).toBeGreaterThan(0);
    const pipe = (await call(`${s.url}/v2/models/pipe/config`)).json;
    expect(pipe).toMatchObject({
      platform: 'ensemble',
      version_policy: { latest: { num_versions: 1 } },
      model_transaction_policy: { decoupled: false },
      instance_group: [],
    });
    expect(pipe.ensemble_scheduling.step[0]).toMatchObject({
      model_name: 'extractor',
      model_version: -1,
      model_namespace: '',
    });
    expect(Object.keys(pipe)).not.toContain('optimization');
  });

  it('marks an ensemble with a decoupled step decoupled, as Triton does on load', async () => {
    const repo = makeTestRepository();
    const file = (p: string, text: string) => {
      mkdirSync(join(repo, p, '..'), { recursive: true });
      writeFileSync(join(repo, p), text);
    };
    file(
      'gen/config.pbtxt',
      'name: "gen"\nbackend: "python"\nmax_batch_size: 0\nmodel_transaction_policy { decoupled: true }\ninput [ { name: "x" data_type: TYPE_FP32 dims: [ 1 ] } ]\noutput [ { name: "y" data_type: TYPE_FP32 dims: [ 1 ] } ]\n',
    );
    file('gen/1/model.py', 'class TritonPythonModel:\n    def execute(self, requests):\n        return None\n');
    file(
      'stream/config.pbtxt',
      'name: "stream"\nplatform: "ensemble"\ninput [ { name: "x" data_type: TYPE_FP32 dims: [ 1 ] } ]\noutput [ { name: "y" data_type: TYPE_FP32 dims: [ 1 ] } ]\n' +
        'ensemble_scheduling { step [ { model_name: "gen" model_version: -1 input_map { key: "x" value: "x" } output_map { key: "y" value: "y" } } ] }\n',
    );
    mkdirSync(join(repo, 'stream', '1'));
    const own = await startTestServer({ repo });
    try {
      const stream = (await call(`${own.url}/v2/models/stream/config`)).json;
      expect(stream.model_transaction_policy).toEqual({ decoupled: true });
      expect((await call(`${own.url}/v2/models/gen/config`)).json).toMatchObject({
        default_model_filename: 'model.py',
        instance_group: [{ name: 'gen', kind: 'KIND_CPU', count: 1 }],
      });
    } finally {
      await own.close();
    }
  });
});
