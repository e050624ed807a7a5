import { status } from '@grpc/grpc-js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { grpcFailure } from '../testing/grpcTestClient.ts';
import { startGrpcTestServer, type GrpcTestServer } from '../testing/grpcTestServer.ts';

let t: GrpcTestServer;
beforeAll(async () => {
  t = await startGrpcTestServer();
});
afterAll(() => t?.close());

const feat = Buffer.alloc(1024);
const head = (input: Record<string, unknown>, extra: Record<string, unknown> = {}) =>
  t.c.call('ModelInfer', {
    model_name: 'head',
    inputs: [{ name: 'feat', datatype: 'FP32', shape: [1, 256], ...input }],
    raw_input_contents: [feat],
    ...extra,
  });
const failure = async (p: Promise<unknown>) => grpcFailure(p);

describe('gRPC tensors and parameters a hostile client sends, answered as Triton answers them', () => {
  it('an input named like a key of Object.prototype is an unknown input, not a duplicate', async () => {
    for (const name of ['__proto__', 'constructor', 'toString'])
      expect(await failure(head({ name }))).toEqual({
        code: status.INVALID_ARGUMENT,
        details: `unexpected inference input '${name}' for model 'head'`,
      });
  });

  it('a tensor naming a shared memory region the server does not have is refused', async () => {
    const shm = { shared_memory_region: { string_param: 'r0' }, shared_memory_byte_size: { int64_param: 1024 } };
    expect(await failure(head({ parameters: shm }))).toEqual({
      code: status.NOT_FOUND,
      details: "Unable to find shared memory region: 'r0'",
    });
    expect(await failure(head({}, { outputs: [{ name: 'logits', parameters: shm }] }))).toEqual({
      code: status.NOT_FOUND,
      details: "Unable to find shared memory region: 'r0'",
    });
    expect((await failure(head({ parameters: { shared_memory_region: { string_param: 'r0' } } }))).details).toBe(
      "'shared_memory_byte_size' must be specified along with 'shared_memory_region' parameter for tensor 'feat'",
    );
    expect((await failure(head({ parameters: { shared_memory_region: { int64_param: 3 } } }))).details).toBe(
      "invalid value type for 'shared_memory_region' parameter for tensor 'feat', expected string_param.",
    );
  });

  it('typed contents beside raw_input_contents get Triton’s words', async () => {
    expect((await failure(head({ contents: { fp32_contents: [1] } }))).details).toBe(
      "contents field must not be specified when using raw_input_contents for 'feat' for model 'head'",
    );
  });

  it('request parameters of the wrong type are refused', async () => {
    const cases: [Record<string, unknown>, string][] = [
      [
        { sequence_start: { int64_param: 1 } },
        "invalid value type for 'sequence_start' parameter, expected bool_param.",
      ],
      [
        { sequence_end: { string_param: 'yes' } },
        "invalid value type for 'sequence_end' parameter, expected bool_param.",
      ],
      [
        { sequence_id: { double_param: 1.5 } },
        "invalid value type for 'sequence_id' parameter, expected int64_param or string_param.",
      ],
      [{ priority: { int64_param: -1 } }, "invalid value for 'priority', expected value >= 0."],
      [
        { priority: { string_param: 'x' } },
        "invalid value type for 'priority' parameter, expected int64_param or uint64_param.",
      ],
      [{ timeout: { string_param: 'x' } }, "invalid value type for 'timeout' parameter, expected int64_param."],
      [{ custom: {} }, "invalid value type for 'custom' parameter, expected int64_param, bool_param, or string_param."],
      [
        { triton_x: { bool_param: true } },
        "parameter keys starting with 'triton_' are reserved for Triton usage. Only the following keys starting with 'triton_' are allowed: triton_enable_empty_final_response",
      ],
    ];
    for (const [parameters, details] of cases)
      expect(await failure(head({}, { parameters })), JSON.stringify(parameters)).toEqual({
        code: status.INVALID_ARGUMENT,
        details,
      });
    // What Triton accepts still runs.
    const ok = await head(
      {},
      { parameters: { priority: { uint64_param: 3 }, timeout: { int64_param: 0 }, k: { double_param: 1 } } },
    );
    expect(ok.raw_output_contents).toHaveLength(1);
  });
});
