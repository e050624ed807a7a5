import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { streamAll, type TestClient, f32Bytes, f32Values } from '../testing/grpcTestClient.ts';
import { startGrpcTestServer, type GrpcTestServer } from '../testing/grpcTestServer.ts';

let t: GrpcTestServer;
let c: TestClient;
beforeAll(async () => {
  t = await startGrpcTestServer();
  ({ c } = t);
});
afterAll(() => t?.close());

const acc = (id: string, seq: object, start: boolean, end: boolean, value = 1) => ({
  model_name: 'acc',
  id,
  parameters: { sequence_id: seq, sequence_start: { bool_param: start }, sequence_end: { bool_param: end } },
  inputs: [{ name: 'x', datatype: 'FP32', shape: [1, 8] }],
  raw_input_contents: [f32Bytes(new Array(8).fill(value))],
});

describe('gRPC ModelStreamInfer', () => {
  it('a model that is not decoupled answers each request once, id echoed, triton_final_response true', async () => {
    const feat = (id: string, v: number) => ({
      model_name: 'head',
      id,
      inputs: [{ name: 'feat', datatype: 'FP32', shape: [1, 256] }],
      raw_input_contents: [f32Bytes(new Array(256).fill(v))],
    });
    const msgs = await streamAll(c, [feat('first', 0.1), feat('second', 0.2)]);
    expect(msgs).toHaveLength(2);
    expect(msgs.map((m) => m.error_message)).toEqual(['', '']);
    expect(msgs.map((m) => m.infer_response.id).sort()).toEqual(['first', 'second']);
    for (const m of msgs) {
      expect(m.infer_response.parameters.triton_final_response).toMatchObject({ bool_param: true });
      expect(m.infer_response.outputs[0]).toMatchObject({ name: 'logits', datatype: 'FP32', shape: ['1', '16'] });
      expect(f32Values(m.infer_response.raw_output_contents[0])).toHaveLength(16);
    }
  });

  it('an error of one request comes as error_message and the stream goes on with the next', async () => {
    const good = {
      model_name: 'head',
      id: 'ok',
      inputs: [{ name: 'feat', datatype: 'FP32', shape: [1, 256] }],
      raw_input_contents: [f32Bytes(new Array(256).fill(0.5))],
    };
    const msgs = await streamAll(c, [
      { model_name: 'nope', id: 'missing', inputs: [] },
      {
        model_name: 'head',
        id: 'wrong-shape',
        inputs: [{ name: 'feat', datatype: 'FP32', shape: [1, 3] }],
        raw_input_contents: [f32Bytes([1, 2, 3])],
      },
      good,
    ]);
    expect(msgs).toHaveLength(3);
    const byId = Object.fromEntries(msgs.map((m) => [m.infer_response.id, m]));
    expect(byId.missing?.error_message).toBe("Request for unknown model: 'nope' is not found");
    expect(byId['wrong-shape']?.error_message).toMatch(
      /^\[request id: wrong-shape\] unexpected shape for input 'feat' for model 'head'/,
    );
    expect(byId.ok?.error_message).toBe('');
    expect(byId.ok?.infer_response.outputs).toHaveLength(1);
  });

  it('a sequence over one stream keeps its state and runs in order; two sequences interleave', async () => {
    const msgs = await streamAll(c, [
      acc('a1', { int64_param: 7 }, true, false),
      acc('b1', { string_param: 'seq-b' }, true, false, 10),
      acc('a2', { int64_param: 7 }, false, false),
      acc('b2', { string_param: 'seq-b' }, false, true, 10),
      acc('a3', { int64_param: 7 }, false, true),
    ]);
    const y = Object.fromEntries(
      msgs.map((m) => [m.infer_response.id, f32Values(m.infer_response.raw_output_contents[0])[0]]),
    );
    expect(y).toEqual({ a1: 1, a2: 2, a3: 3, b1: 10, b2: 20 });
  });

  it('triton_enable_empty_final_response adds nothing for a model whose response is already final', async () => {
    const req = {
      model_name: 'head',
      id: 'e',
      parameters: { triton_enable_empty_final_response: { bool_param: true } },
      inputs: [{ name: 'feat', datatype: 'FP32', shape: [1, 256] }],
      raw_input_contents: [f32Bytes(new Array(256).fill(0.5))],
    };
    const msgs = await streamAll(c, [req]);
    expect(msgs).toHaveLength(1);
    expect(msgs[0]!.infer_response.parameters.triton_final_response.bool_param).toBe(true);
  });
});
