import { Client, credentials, type ServiceError } from '@grpc/grpc-js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { encodeRequest } from '../testing/grpcTestClient.ts';
import { startGrpcTestServer, type GrpcTestServer } from '../testing/grpcTestServer.ts';
import { inferenceService } from './loadService.ts';

// Requests that C++ protobuf would not parse get what Triton's server (gRPC C++, async API) answers them: INTERNAL
// `Unable to parse request`. protobufjs read some of them (a truncated string) and grpc-js worded the rest its own way.

let t: GrpcTestServer;
let raw: Client;
beforeAll(async () => {
  t = await startGrpcTestServer();
  raw = new Client(t.g.address, credentials.createInsecure());
});
afterAll(async () => {
  raw?.close();
  await t?.close();
});

const METHOD = '/inference.GRPCInferenceService/';
const same = (b: Buffer) => b;
const good = (rows: number) =>
  encodeRequest('ModelInfer', {
    model_name: 'extractor',
    inputs: [{ name: 'x', datatype: 'FP32', shape: [rows, 64] }],
    raw_input_contents: [Buffer.alloc(rows * 256)],
  });
/** A string field (model_name) announcing 5 bytes with 1 left: protobufjs reads the one, C++ refuses. */
const truncated = Buffer.from([0x0a, 5, 0x41]);

/** ModelInfer with `bytes` as its request: the failure's code and details, or 'ok'. */
function infer(bytes: Buffer): Promise<[number, string] | 'ok'> {
  return new Promise((resolve) =>
    raw.makeUnaryRequest(`${METHOD}ModelInfer`, same, same, bytes, (err: ServiceError | null) =>
      resolve(err ? [err.code, err.details] : 'ok'),
    ),
  );
}

describe('a ModelInferRequest that does not parse', () => {
  it("gets INTERNAL 'Unable to parse request', small or large (decoded in the body worker)", async () => {
    const INTERNAL = 13;
    expect(await infer(truncated)).toEqual([INTERNAL, 'Unable to parse request']);
    expect(await infer(Buffer.from([0x0f, 1, 1]))).toEqual([INTERNAL, 'Unable to parse request']);
    // Over 64 KiB: a well-formed request for a known model with a truncated field after it.
    const large = good(400);
    expect(large.byteLength).toBeGreaterThan(64 * 1024);
    expect(await infer(large)).toBe('ok');
    expect(await infer(Buffer.concat([large, Buffer.from([0x1a, 9, 0x41])]))).toEqual([
      INTERNAL,
      'Unable to parse request',
    ]);
    // The same with an unknown model: refused as unparsable first, as Triton's server parses before anything else.
    const unknown = Buffer.concat([Buffer.from([0x0a, 4]), Buffer.from('nope'), large.subarray(11)]);
    expect(await infer(Buffer.concat([unknown, Buffer.from([0x1a, 9])]))).toEqual([
      INTERNAL,
      'Unable to parse request',
    ]);
    expect(await infer(unknown)).toEqual([5, "Request for unknown model: 'nope' is not found"]);
  });

  it('on a stream, is answered with that error and the stream goes on', async () => {
    const decode = inferenceService().service.ModelStreamInfer!.responseDeserialize;
    const got = await new Promise<{ error_message: string; infer_response: { outputs: { name: string }[] } }[]>(
      (resolve, reject) => {
        const out: { error_message: string; infer_response: { outputs: { name: string }[] } }[] = [];
        const s = raw.makeBidiStreamRequest(`${METHOD}ModelStreamInfer`, same, decode);
        s.on('data', (m: (typeof out)[number]) => out.push(m));
        s.on('error', reject);
        s.on('end', () => resolve(out));
        s.write(good(1));
        s.write(truncated);
        s.write(good(1));
        s.end();
      },
    );
    // Each request's answer comes when it is ready: the refusal may overtake the run before it.
    expect(got.map((m) => `${m.error_message}|${m.infer_response.outputs.map((o) => o.name).join()}`).sort()).toEqual([
      'Unable to parse request|',
      '|feat',
      '|feat',
    ]);
  });
});
