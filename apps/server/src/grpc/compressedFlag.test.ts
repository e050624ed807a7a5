import { connect } from 'node:http2';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { encodeRequest, grpcFrame } from '../testing/grpcTestClient.ts';
import { startGrpcTestServer, type GrpcTestServer } from '../testing/grpcTestServer.ts';
import { COMPRESSED_WITHOUT_ENCODING } from './deferredRequests.ts';

// gRPC's protocol allows a message's compressed flag only when the call names its compression (grpc-encoding), and
// gRPC's servers (Triton's is gRPC C++) fail a call that breaks it with INTERNAL. grpc-js read such a message as if
// it were not compressed. Sent here over raw HTTP/2, since a gRPC client never sends one.

let t: GrpcTestServer;
beforeAll(async () => {
  t = await startGrpcTestServer();
});
afterAll(async () => {
  await t?.close();
});

const INTERNAL = 13;
const request = (rows: number) =>
  encodeRequest('ModelInfer', {
    model_name: 'extractor',
    inputs: [{ name: 'x', datatype: 'FP32', shape: [rows, 64] }],
    raw_input_contents: [Buffer.alloc(rows * 256, 1)],
  });

/** One call over raw HTTP/2: `frames` written, then the trailers' status and message and how many messages came. */
function rawCall(method: string, frames: Buffer[], headers: Record<string, string> = {}) {
  return new Promise<{ status: number; message: string; messages: number }>((resolve, reject) => {
    const session = connect(`http://${t.g.address}`);
    session.on('error', reject);
    const stream = session.request({
      ':method': 'POST',
      ':path': `/inference.GRPCInferenceService/${method}`,
      'content-type': 'application/grpc',
      te: 'trailers',
      ...headers,
    });
    let bytes = Buffer.alloc(0);
    stream.on('data', (d: Buffer) => (bytes = Buffer.concat([bytes, d])));
    // The status comes in trailers, or in the response's headers when nothing else is sent (trailers-only).
    let status: Record<string, unknown> | undefined;
    const hasStatus = (h: Record<string, unknown>) => {
      if (h['grpc-status'] !== undefined) status = h;
    };
    stream.on('response', hasStatus);
    stream.on('trailers', hasStatus);
    stream.on('end', () => {
      let messages = 0;
      for (let at = 0; at + 5 <= bytes.byteLength; at += 5 + bytes.readUInt32BE(at + 1)) messages++;
      const message = decodeURIComponent(String(status?.['grpc-message'] ?? ''));
      resolve({ status: Number(status?.['grpc-status']), message, messages });
      session.close();
    });
    stream.on('error', reject);
    for (const f of frames) stream.write(f);
    stream.end();
  });
}

describe('a message flagged compressed on a call that names no compression', () => {
  const refused = { status: INTERNAL, message: COMPRESSED_WITHOUT_ENCODING, messages: 0 };

  it('fails ModelInfer with INTERNAL, small or large, without grpc-encoding or with identity', async () => {
    expect(await rawCall('ModelInfer', [grpcFrame(request(1), true)])).toEqual(refused);
    expect(await rawCall('ModelInfer', [grpcFrame(request(1), true)], { 'grpc-encoding': 'identity' })).toEqual(
      refused,
    );
    expect(await rawCall('ModelInfer', [grpcFrame(request(400), true)])).toEqual(refused);
  });

  it('leaves uncompressed messages and ones compressed with their grpc-encoding served', async () => {
    const served = { status: 0, message: 'OK', messages: 1 };
    expect(await rawCall('ModelInfer', [grpcFrame(request(1))])).toEqual(served);
    for (const rows of [1, 20, 400])
      expect(
        await rawCall('ModelInfer', [grpcFrame(gzipSync(request(rows)), true)], { 'grpc-encoding': 'gzip' }),
        `${rows} rows`,
      ).toEqual(served);
  });

  it('ends ModelStreamInfer with INTERNAL after the responses before it', async () => {
    const plain = grpcFrame(request(1));
    const got = await rawCall('ModelStreamInfer', [plain, grpcFrame(request(1), true), plain]);
    expect(got.status).toBe(INTERNAL);
    expect(got.message).toBe(COMPRESSED_WITHOUT_ENCODING);
    expect(got.messages).toBeLessThanOrEqual(1);
  });
});
