import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { status } from '@grpc/grpc-js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGrpcServer } from './server.ts';
import type { TestClient } from '../testing/grpcTestClient.ts';
import { grpcFailure, f32Bytes, f32Values } from '../testing/grpcTestClient.ts';
import { startGrpcTestServer, type GrpcTestServer } from '../testing/grpcTestServer.ts';

let t: GrpcTestServer;
let s: GrpcTestServer['s'];
let c: TestClient;
beforeAll(async () => {
  t = await startGrpcTestServer();
  ({ s, c } = t);
});
afterAll(() => t?.close());

const x64 = Array.from({ length: 64 }, (_, i) => (i % 5) / 5);
const accRequest = (parameters: Record<string, unknown>, id = '') => ({
  model_name: 'acc',
  id,
  parameters,
  inputs: [{ name: 'x', datatype: 'FP32', shape: [1, 8] }],
  raw_input_contents: [f32Bytes(new Array(8).fill(1))],
});

describe('gRPC health, metadata, config, repository', () => {
  it('answers health and server metadata', async () => {
    expect(await c.call('ServerLive', {})).toEqual({ live: true });
    expect(await c.call('ServerReady', {})).toEqual({ ready: true });
    const meta = await c.call('ServerMetadata', {});
    expect(meta.name).toBe('ensemble-studio');
    expect(meta.extensions).toContain('model_configuration');
  });

  it('ModelReady and ModelMetadata as HTTP reports them (full shapes, versions as strings)', async () => {
    expect(await c.call('ModelReady', { name: 'head' })).toEqual({ ready: true });
    expect(await c.call('ModelReady', { name: 'bad' })).toEqual({ ready: false });
    expect(await c.call('ModelReady', { name: 'nope' })).toEqual({ ready: false });
    const meta = await c.call('ModelMetadata', { name: 'head', version: '1' });
    expect(meta).toMatchObject({ name: 'head', versions: ['1'], platform: 'onnxruntime_onnx' });
    expect(meta.inputs).toEqual([{ name: 'feat', datatype: 'FP32', shape: ['-1', '256'] }]);
    expect(await grpcFailure(c.call('ModelMetadata', { name: 'head', version: '3' }))).toEqual({
      code: status.NOT_FOUND,
      details: "Request for unknown model: 'head' version 3 is not found",
    });
  });

  it("ModelConfig is Triton's ModelConfig message with the HTTP config's values", async () => {
    const { config } = await c.call('ModelConfig', { name: 'head' });
    expect(config).toMatchObject({
      name: 'head',
      platform: 'onnxruntime_onnx',
      max_batch_size: 8,
      input: [{ name: 'feat', data_type: 'TYPE_FP32', dims: ['256'] }],
    });
    expect(config.dynamic_batching.max_queue_delay_microseconds).toBe('100');
    const pipe = (await c.call('ModelConfig', { name: 'pipe' })).config;
    expect(pipe.platform).toBe('ensemble');
    expect(pipe.ensemble_scheduling.step.map((st: { model_name: string }) => st.model_name)).toEqual([
      'extractor',
      'head',
    ]);
    expect(pipe.ensemble_scheduling.step[0].input_map).toEqual({ x: 'x' });
    expect((await grpcFailure(c.call('ModelConfig', { name: 'nope' }))).code).toBe(status.NOT_FOUND);
  });

  it('RepositoryIndex lists every model with its state; ready=true leaves out the unavailable ones', async () => {
    const all = (await c.call('RepositoryIndex', {})).models as { name: string; state: string; reason: string }[];
    expect(all.find((m) => m.name === 'bad')?.state).toBe('UNAVAILABLE');
    expect(all.find((m) => m.name === 'pipe')).toMatchObject({ state: 'READY', version: '1' });
    const ready = (await c.call('RepositoryIndex', { ready: true })).models as { name: string }[];
    expect(ready.map((m) => m.name)).not.toContain('bad');
    expect(ready.map((m) => m.name)).toContain('head');
  });

  it('RepositoryModelLoad re-reads an edited model from disk; an unknown name is NOT_FOUND', async () => {
    const path = join(s.repo, 'head', 'config.pbtxt');
    writeFileSync(
      path,
      readFileSync(path, 'utf8').replace('max_queue_delay_microseconds: 100', 'max_queue_delay_microseconds: 250'),
    );
    expect(await c.call('RepositoryModelLoad', { model_name: 'head' })).toEqual({});
    expect((await c.call('ModelConfig', { name: 'head' })).config.dynamic_batching.max_queue_delay_microseconds).toBe(
      '250',
    );
    const feat = Array.from({ length: 256 }, () => 0.25);
    const r = await c.call('ModelInfer', {
      model_name: 'head',
      inputs: [{ name: 'feat', datatype: 'FP32', shape: [1, 256] }],
      raw_input_contents: [f32Bytes(feat)],
    });
    expect(f32Values(r.raw_output_contents[0])).toHaveLength(16);
    expect((await grpcFailure(c.call('RepositoryModelLoad', { model_name: 'nope' }))).code).toBe(status.NOT_FOUND);
  });

  it('a port in use is refused naming the port and the ways out', async () => {
    await expect(startGrpcServer(s.studio, '127.0.0.1', t.g.port)).rejects.toThrow(
      `gRPC cannot listen on 127.0.0.1:${t.g.port}: the port is in use (--grpc-port 0 picks a free one, off turns gRPC off)`,
    );
  });
});

describe('gRPC ModelInfer', () => {
  it('raw_input_contents in, raw_output_contents out, id echoed, requested outputs honoured', async () => {
    const r = await c.call('ModelInfer', {
      model_name: 'pipe',
      id: 'req-1',
      inputs: [{ name: 'x', datatype: 'FP32', shape: [2, 64] }],
      outputs: [{ name: 'logits' }],
      raw_input_contents: [f32Bytes([...x64, ...x64])],
    });
    expect(r).toMatchObject({ model_name: 'pipe', model_version: '1', id: 'req-1' });
    expect(
      r.outputs.map((o: { name: string; datatype: string; shape: string[] }) => [o.name, o.datatype, o.shape]),
    ).toEqual([['logits', 'FP32', ['2', '16']]]);
    const logits = f32Values(r.raw_output_contents[0]);
    expect(logits).toHaveLength(32);
    expect(logits.slice(0, 16)).toEqual(logits.slice(16));
  });

  it('typed contents give the same tensor as raw bytes', async () => {
    const feat = Array.from({ length: 256 }, (_, i) => ((i * 7) % 11) / 11);
    const raw = await c.call('ModelInfer', {
      model_name: 'head',
      inputs: [{ name: 'feat', datatype: 'FP32', shape: [1, 256] }],
      raw_input_contents: [f32Bytes(feat)],
    });
    const typed = await c.call('ModelInfer', {
      model_name: 'head',
      inputs: [{ name: 'feat', datatype: 'FP32', shape: [1, 256], contents: { fp32_contents: feat } }],
    });
    expect(f32Values(typed.raw_output_contents[0])).toEqual(f32Values(raw.raw_output_contents[0]));
  });

  it('refuses an unknown model, an unknown input, a wrong datatype or shape, and bad tensor bytes, naming the problem', async () => {
    expect(await grpcFailure(c.call('ModelInfer', { model_name: 'nope', inputs: [] }))).toEqual({
      code: status.NOT_FOUND,
      details: "Request for unknown model: 'nope' is not found",
    });
    const head = (input: object, raw?: Buffer) =>
      c.call('ModelInfer', { model_name: 'head', inputs: [input], ...(raw ? { raw_input_contents: [raw] } : {}) });
    expect(await grpcFailure(head({ name: 'feat', datatype: 'INT32', shape: [1, 256] }, Buffer.alloc(1024)))).toEqual({
      code: status.INVALID_ARGUMENT,
      details:
        "[request id: <id_unknown>] inference input 'feat' data-type is 'INT32', but model 'head' expects 'FP32'",
    });
    expect(
      (await grpcFailure(head({ name: 'feat', datatype: 'FP32', shape: [1, 255] }, Buffer.alloc(1020)))).details,
    ).toMatch(
      /^\[request id: <id_unknown>\] unexpected shape for input 'feat' for model 'head'\. Expected \[-1,256\], got \[1,255\]/,
    );
    expect(
      (await grpcFailure(head({ name: 'feat', datatype: 'FP32', shape: [1, 256] }, Buffer.alloc(100)))).details,
    ).toBe("input 'feat' has 100 bytes but shape [1,256] of FP32 needs 1024");
    expect(
      (await grpcFailure(head({ name: 'other', datatype: 'FP32', shape: [1, 256] }, Buffer.alloc(1024)))).details,
    ).toBe("unexpected inference input 'other' for model 'head'");
    expect(
      (await grpcFailure(head({ name: 'feat', datatype: 'FP32', shape: [1, 256], contents: { int_contents: [1] } })))
        .details,
    ).toMatch(/belongs in contents\.fp32_contents, not contents\.int_contents/);
    expect((await grpcFailure(head({ name: 'feat', datatype: 'NOPE', shape: [1] }))).details).toMatch(
      /unknown datatype 'NOPE'/,
    );
    expect((await grpcFailure(c.call('ModelInfer', { model_name: 'ghost', inputs: [] }))).code).toBe(
      status.UNAVAILABLE,
    );
  });

  it('sequences: number and string correlation ids keep their own state; a missing id is refused', async () => {
    const y = async (parameters: Record<string, unknown>) =>
      f32Values((await c.call('ModelInfer', accRequest(parameters))).raw_output_contents[0])[0];
    const seq = (id: object, start: boolean, end: boolean) => ({
      sequence_id: id,
      sequence_start: { bool_param: start },
      sequence_end: { bool_param: end },
    });
    expect(await y(seq({ int64_param: 41 }, true, false))).toBe(1);
    expect(await y(seq({ string_param: 'abc' }, true, false))).toBe(1);
    expect(await y(seq({ int64_param: 41 }, false, false))).toBe(2);
    expect(await y(seq({ string_param: 'abc' }, false, true))).toBe(2);
    expect(await y(seq({ int64_param: 41 }, false, true))).toBe(3);
    expect((await grpcFailure(c.call('ModelInfer', accRequest({})))).details).toBe(
      "inference request to model 'acc' must specify a non-zero or non-empty correlation ID",
    );
    // The model's own error, in Triton's words, without the one-model graph's ensemble prefix.
    expect(
      (await grpcFailure(c.call('ModelInfer', accRequest(seq({ int64_param: 41 }, false, false))))).details,
    ).toMatch(
      /^inference request for sequence 41 to model 'acc' must specify the START flag on the first request of the sequence/,
    );
  });

  it("an answered call's run is not aborted afterwards; one past its deadline is", async () => {
    const studio = s.studio;
    const run = studio.engine.run;
    const signals: AbortSignal[] = [];
    let hold = false;
    studio.engine.run = async (req) => {
      signals.push(req.signal as AbortSignal);
      // Held until the call is cancelled (its deadline), so that the cancel comes while the run is in flight.
      if (hold)
        await new Promise<void>((resolve) => req.signal!.addEventListener('abort', () => resolve(), { once: true }));
      return run.call(studio.engine, req);
    };
    const feat = { model_name: 'head', inputs: [{ name: 'feat', datatype: 'FP32', shape: [1, 256] }] };
    try {
      await c.call('ModelInfer', { ...feat, raw_input_contents: [f32Bytes(new Array(256).fill(0.5))] });
      // grpc-js notifies the end of every call as a cancel, after its trailers: a turn later at most.
      await new Promise((resolve) => setTimeout(resolve, 50));
      expect(signals).toHaveLength(1);
      expect(signals[0]!.aborted).toBe(false);
      hold = true;
      const late = c.callWithMetadata(
        'ModelInfer',
        { ...feat, raw_input_contents: [f32Bytes(new Array(256).fill(0.5))] },
        [],
        200,
      );
      expect((await grpcFailure(late)).code).toBe(status.DEADLINE_EXCEEDED);
      await expect.poll(() => signals[1]?.aborted).toBe(true);
      expect(String((signals[1]!.reason as Error).message)).toBe('the gRPC client cancelled the call');
    } finally {
      studio.engine.run = run;
    }
  });

  it('ModelStatistics counts the inferences from engine.metrics()', async () => {
    const stats = (await c.call('ModelStatistics', { name: 'head' })).model_stats;
    expect(stats).toHaveLength(1);
    expect(stats[0].name).toBe('head');
    expect(Number(stats[0].inference_count)).toBeGreaterThanOrEqual(2);
    expect(Number(stats[0].inference_stats.success.count)).toBeGreaterThanOrEqual(2);
    expect(Number(stats[0].inference_stats.compute_infer.ns)).toBeGreaterThan(0);
    expect((await c.call('ModelStatistics', {})).model_stats.map((m: { name: string }) => m.name)).toContain('pipe');
    expect((await grpcFailure(c.call('ModelStatistics', { name: 'nope' }))).code).toBe(status.NOT_FOUND);
  });
});

describe('gRPC token', () => {
  it('with a token, a call without the bearer metadata is UNAUTHENTICATED and one with it answers', async () => {
    const secured = await startGrpcTestServer({ token: 'grpc-token-123' });
    const sc = secured.c;
    try {
      expect((await grpcFailure(sc.call('ServerLive', {}))).code).toBe(status.UNAUTHENTICATED);
      expect((await grpcFailure(sc.call('ServerLive', {}, 'wrong-token-000'))).code).toBe(status.UNAUTHENTICATED);
      expect(await sc.call('ServerLive', {}, 'grpc-token-123')).toEqual({ live: true });
      const refused = await new Promise<{ code: number }>((resolve) => {
        const st = sc.stream();
        st.on('error', resolve);
        st.on('data', () => undefined);
        st.end();
      });
      expect(refused.code).toBe(status.UNAUTHENTICATED);
    } finally {
      await secured.close();
    }
  });
});
