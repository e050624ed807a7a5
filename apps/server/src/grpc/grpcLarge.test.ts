// ModelInfer and ModelStreamInfer messages over INLINE_DECODE_BYTES: grpc-js leaves them as bytes and the body worker decodes
// them (deferredRequests.ts), with the answers a small message gets, in the order they came.
import { status } from '@grpc/grpc-js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { streamAll, grpcFailure, f32Values } from '../testing/grpcTestClient.ts';
import { startGrpcTestServer, type GrpcTestServer } from '../testing/grpcTestServer.ts';
import { INLINE_DECODE_BYTES } from './deferredRequests.ts';

let t: GrpcTestServer;
beforeAll(async () => {
  t = await startGrpcTestServer();
});
afterAll(() => t?.close());

const rows = Math.ceil(INLINE_DECODE_BYTES / (64 * 4)) + 8;
const pipeRequest = (n: number, id: string) => ({
  model_name: 'pipe',
  id,
  inputs: [{ name: 'x', datatype: 'FP32', shape: [n, 64] }],
  raw_input_contents: [Buffer.from(Float32Array.from({ length: n * 64 }, (_, i) => (i % 64) / 64).buffer)],
});

describe('large gRPC inference requests', () => {
  it('ModelInfer over INLINE_DECODE_BYTES answers as a small one does', async () => {
    const [large, small] = await Promise.all([
      t.c.call('ModelInfer', pipeRequest(rows, 'large')),
      t.c.call('ModelInfer', pipeRequest(1, 'small')),
    ]);
    expect(large.outputs[0].shape).toEqual([String(rows), '16']);
    expect(large.id).toBe('large');
    const logits = f32Values(large.raw_output_contents[0]);
    // Every row is the same input, so every row's logits equal the one-row request's.
    expect(logits.slice(16 * (rows - 1))).toEqual(f32Values(small.raw_output_contents[0]));
  });

  it("refuses 200,000 one-element inputs, or an unknown model, with Triton's words before decoding any tensor, and a large request's bad tensor as a small one's", async () => {
    const many = {
      model_name: 'head',
      inputs: Array.from({ length: 200_000 }, (_, i) => ({ name: `x${i}`, datatype: 'FP32', shape: [1] })),
      raw_input_contents: Array.from({ length: 200_000 }, () => Buffer.alloc(4)),
    };
    // Triton's count check (ValidateRequestInputs) comes before any input's name is looked up.
    expect(await grpcFailure(t.c.call('ModelInfer', many))).toEqual({
      code: status.INVALID_ARGUMENT,
      details: expect.stringMatching(
        /^\[request id: <id_unknown>\] expected 1 inputs but got 200000 inputs for model 'head'\. Got input\(s\) \['x0','x1',/,
      ) as unknown as string,
    });
    expect(await grpcFailure(t.c.call('ModelInfer', { ...many, model_name: 'nope' }))).toEqual({
      code: status.NOT_FOUND,
      details: "Request for unknown model: 'nope' is not found",
    });
    const short = pipeRequest(rows, 'short');
    short.raw_input_contents[0] = short.raw_input_contents[0]!.subarray(4);
    const shortSmall = pipeRequest(2, 'short');
    shortSmall.raw_input_contents[0] = shortSmall.raw_input_contents[0]!.subarray(4);
    const [large, small] = await Promise.all([
      grpcFailure(t.c.call('ModelInfer', short)),
      grpcFailure(t.c.call('ModelInfer', shortSmall)),
    ]);
    expect(large.code).toBe(status.INVALID_ARGUMENT);
    const sized = (n: number) => (m: string) =>
      m
        .replace(String(n * 256 - 4), 'N')
        .replace(String(n * 256), 'M')
        .replace(`[${n},64]`, '[R,64]');
    expect(sized(rows)(large.details)).toBe(sized(2)(small.details));
  });

  it("ModelStreamInfer starts a large request and the small ones behind it in the order they came: a sequence's sums run 1, 2, 3", async () => {
    // A parameter pads the middle request past INLINE_DECODE_BYTES.
    const step = (parameters: Record<string, unknown>) => ({
      model_name: 'acc',
      parameters: { sequence_id: { int64_param: '77' }, ...parameters },
      inputs: [{ name: 'x', datatype: 'FP32', shape: [1, 8] }],
      raw_input_contents: [Buffer.from(new Float32Array(8).fill(1).buffer)],
    });
    const pad = { pad: { string_param: 'p'.repeat(INLINE_DECODE_BYTES + 1024) } };
    const messages = await streamAll(t.c, [
      step({ sequence_start: { bool_param: true } }),
      step(pad),
      step({ sequence_end: { bool_param: true } }),
    ]);
    expect(messages.map((m) => [m.error_message, f32Values(m.infer_response.raw_output_contents[0])[0]])).toEqual([
      ['', 1],
      ['', 2],
      ['', 3],
    ]);
  });
});
