import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { status } from '@grpc/grpc-js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { f32Bytes, grpcFailure, streamAll } from '../testing/grpcTestClient.ts';
import { startGrpcTestServer, type GrpcTestServer } from '../testing/grpcTestServer.ts';
import { tempDir } from '../testing/tempDir.ts';
import { call } from '../testing/testServer.ts';

// Triton's trace extension end to end: the settings over HTTP and gRPC, and the trace file a server started with
// `--trace-config triton,file=… level=TIMESTAMPS rate=1` writes at shutdown: a plain model's trace (an ONNX model's
// session run between COMPUTE_INPUT_END and COMPUTE_OUTPUT_START), an ensemble's with a child trace per step, HTTP's
// and gRPC's frontend timestamps, each trace's times in order.

let t: GrpcTestServer;
const dir = tempDir('trace-e2e-');
const file = join(dir, 'trace.json');
beforeAll(async () => {
  t = await startGrpcTestServer({ trace: { level: 1, rate: 1, count: -1, logFrequency: 0, file } });
});
afterAll(() => t?.close());

type Rec = {
  id: number;
  model_name?: string;
  parent_id?: number;
  request_id?: string;
  timestamps?: { name: string; ns: number }[];
};

/** The trace file's records grouped by trace id: the model record, and the timestamps' names in time order. */
function traces(): Map<number, { model?: Rec; names: string[]; times: number[] }> {
  const out = new Map<number, { model?: Rec; names: string[]; times: number[] }>();
  for (const r of JSON.parse(readFileSync(file, 'utf8')) as Rec[]) {
    const e = out.get(r.id) ?? { names: [], times: [] };
    if (r.model_name) e.model = r;
    for (const ts of r.timestamps ?? []) {
      e.names.push(ts.name);
      e.times.push(ts.ns);
    }
    out.set(r.id, e);
  }
  return out;
}

const settings = (path: string) => `${t.s.url}${path}`;

describe("Triton's trace settings", () => {
  it('reports the settings the server started with, globally and for a model', async () => {
    const expected = {
      trace_level: ['TIMESTAMPS'],
      trace_rate: '1',
      trace_count: '-1',
      log_frequency: '0',
      trace_file: file,
      trace_mode: 'triton',
    };
    expect((await call(settings('/v2/trace/setting'))).json).toEqual(expected);
    expect((await call(settings('/v2/models/head/trace/setting'))).json).toEqual(expected);
    expect((await call(`${t.s.url}/v2`)).json.extensions).toEqual(expect.arrayContaining(['trace', 'schedule_policy']));
  });

  it("changes a model's setting alone, clears it back, and refuses as Triton refuses", async () => {
    const r = await call(settings('/v2/models/pipe/trace/setting'), 'POST', { trace_rate: '1000' });
    expect([r.status, r.json.trace_rate]).toEqual([200, '1000']);
    expect((await call(settings('/v2/trace/setting'))).json.trace_rate).toBe('1');
    expect((await call(settings('/v2/models/pipe/trace/setting'), 'POST', { trace_rate: null })).json.trace_rate).toBe(
      '1',
    );
    const refusals = await Promise.all([
      call(settings('/v2/trace/setting'), 'POST', { trace_file: 'elsewhere.json' }),
      call(settings('/v2/models/nope/trace/setting')),
      call(settings('/v2/models/bad/trace/setting'), 'POST', {}),
      call(settings('/v2/trace/setting'), 'POST', { trace_level: ['OFF', 'TENSORS'] }),
      call(settings('/v2/trace/setting'), 'PUT', {}),
    ]);
    expect(refusals.map((x) => [x.status, x.json.error])).toEqual([
      [501, 'trace file location can not be updated through network protocol'],
      [400, 'Request for unknown model : nope'],
      [400, 'Request for unknown model : bad'],
      [400, "Expect only one trace level 'OFF' is specified"],
      [405, 'Method Not Allowed'],
    ]);
  });

  it('reads and changes the same settings over gRPC', async () => {
    const r = await t.c.call('TraceSetting', { model_name: 'head', settings: { trace_count: { value: ['50'] } } });
    expect(r.settings.trace_count).toEqual({ value: ['50'] });
    expect((await call(settings('/v2/models/head/trace/setting'))).json.trace_count).toBe('50');
    await t.c.call('TraceSetting', { model_name: 'head', settings: { trace_count: { value: [] } } });
    expect((await t.c.call('TraceSetting', {})).settings.trace_rate).toEqual({ value: ['1'] });
    expect(await grpcFailure(t.c.call('TraceSetting', { model_name: 'nope' }))).toEqual({
      code: status.INVALID_ARGUMENT,
      details: 'Request for unknown model : nope',
    });
  });
});

describe("Triton's trace file", () => {
  it('holds each traced request: the model, its steps as child traces, the frontend times, all in order', async () => {
    const feat = Array.from({ length: 256 }, (_, i) => (i % 7) / 7);
    const x = Array.from({ length: 64 }, (_, i) => (i % 5) / 5);
    const head = await call(`${t.s.url}/v2/models/head/infer`, 'POST', {
      id: 'h1',
      inputs: [{ name: 'feat', datatype: 'FP32', shape: [1, 256], data: feat }],
    });
    const pipe = await call(`${t.s.url}/v2/models/pipe/infer`, 'POST', {
      inputs: [{ name: 'x', datatype: 'FP32', shape: [1, 64], data: x }],
    });
    expect([head.status, pipe.status]).toEqual([200, 200]);
    await t.c.call('ModelInfer', {
      model_name: 'head',
      id: 'g1',
      inputs: [{ name: 'feat', datatype: 'FP32', shape: [1, 256] }],
      raw_input_contents: [f32Bytes(feat)],
    });
    const streamed = await streamAll(t.c, [
      {
        model_name: 'head',
        id: 's1',
        inputs: [{ name: 'feat', datatype: 'FP32', shape: [1, 256] }],
        raw_input_contents: [f32Bytes(feat)],
      },
    ]);
    expect(streamed.map((m) => m.error_message)).toEqual(['']);
    // Triton writes the traces at shutdown (log_frequency 0).
    await t.close();
    const all = [...traces().values()].filter((e) => e.model);
    const byName = (name: string, parent?: boolean) =>
      all.filter((e) => e.model!.model_name === name && (e.model!.parent_id !== undefined) === (parent ?? false));
    const [httpHead, grpcHead, streamHead] = byName('head');
    expect(httpHead!.model!.request_id).toBe('h1');
    expect(httpHead!.names).toEqual([
      'HTTP_RECV_START',
      'HTTP_RECV_END',
      'REQUEST_START',
      'QUEUE_START',
      'COMPUTE_START',
      'COMPUTE_INPUT_END',
      'COMPUTE_OUTPUT_START',
      'COMPUTE_END',
      'INFER_RESPONSE_COMPLETE',
      'REQUEST_END',
      'HTTP_SEND_START',
      'HTTP_SEND_END',
    ]);
    expect(grpcHead!.names[0]).toBe('GRPC_WAITREAD_START');
    expect(grpcHead!.names.at(-1)).toBe('GRPC_SEND_END');
    expect(streamHead!.model!.request_id).toBe('s1');
    expect(streamHead!.names.slice(0, 3)).toEqual(['GRPC_WAITREAD_START', 'GRPC_WAITREAD_END', 'REQUEST_START']);
    const [ensemble] = byName('pipe');
    expect(ensemble!.names).not.toContain('COMPUTE_START');
    const steps = all.filter((e) => e.model!.parent_id === ensemble!.model!.id);
    expect(steps.map((e) => e.model!.model_name)).toEqual(['extractor', 'head']);
    for (const e of [httpHead!, grpcHead!, streamHead!, ensemble!, ...steps]) {
      expect(e.times).toEqual([...e.times].sort((a, b) => a - b));
    }
    // The steps ran inside the ensemble's request.
    for (const s of steps) {
      expect(s.times[0]).toBeGreaterThanOrEqual(ensemble!.times[ensemble!.names.indexOf('REQUEST_START')]!);
      expect(s.times.at(-1)).toBeLessThanOrEqual(ensemble!.times[ensemble!.names.indexOf('REQUEST_END')]!);
    }
  });
});
