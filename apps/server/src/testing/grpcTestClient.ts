import { connect, type ClientHttp2Session, type ClientHttp2Stream } from 'node:http2';
import { credentials, Metadata, type Client, type ClientDuplexStream, type ServiceError } from '@grpc/grpc-js';
import { inferenceService } from '../grpc/loadService.ts';

/**
 * FP32 values as one entry of `raw_input_contents` (their little-endian bytes).
 * @example c.call('ModelInfer', { model_name: 'head', inputs, raw_input_contents: [f32Bytes(feat)] })
 */
export const f32Bytes = (values: number[]): Buffer => Buffer.from(new Float32Array(values).buffer);

/**
 * One entry of `raw_output_contents` read as FP32 values.
 * @example f32Values(r.raw_output_contents[0])
 */
export const f32Values = (b: Uint8Array): number[] => Array.from(new Float32Array(new Uint8Array(b).buffer));

/** A real gRPC client of the studio's service (grpc-js over a socket), with promise-returning unary calls. */
export interface TestClient {
  call<T = any>(method: string, request: unknown, token?: string): Promise<T>;
  /** A unary call with these metadata entries (a hostile client's headers), within `deadlineMs`. */
  callWithMetadata<T = any>(
    method: string,
    request: unknown,
    entries: [string, string][],
    deadlineMs?: number,
  ): Promise<T>;
  /**
   * Sends a unary request as bytes already encoded (`encodeRequest`), so a huge message costs its encoding before
   * the call, not during it; resolves with the status details ('' when it answered).
   */
  callEncoded(method: string, bytes: Buffer): Promise<string>;
  stream(token?: string): ClientDuplexStream<any, any>;
  close(): void;
}

/**
 * Connects to `address` (`HOST:PORT`) with the service loaded from the studio's own .proto.
 * @example const c = connectTestClient(g.address); await c.call('ServerLive', {})
 */
export function connectTestClient(address: string): TestClient {
  const client = new (inferenceService().client)(address, credentials.createInsecure()) as Client & Record<string, any>;
  const md = (token?: string) => {
    const m = new Metadata();
    if (token) m.set('authorization', `Bearer ${token}`);
    return m;
  };
  return {
    call: (method, request, token) =>
      new Promise((resolve, reject) => {
        client[method](request, md(token), (err: ServiceError | null, res: any) => (err ? reject(err) : resolve(res)));
      }),
    callWithMetadata: (method, request, entries, deadlineMs = 10_000) =>
      new Promise((resolve, reject) => {
        const m = new Metadata();
        for (const [key, value] of entries) m.add(key, value);
        client[method](request, m, { deadline: Date.now() + deadlineMs }, (err: ServiceError | null, res: any) =>
          err ? reject(err) : resolve(res),
        );
      }),
    callEncoded: (method, bytes) =>
      new Promise((resolve) => {
        const identity = (b: Buffer) => b;
        client.makeUnaryRequest(
          `/inference.GRPCInferenceService/${method}`,
          identity,
          identity,
          bytes,
          (err: ServiceError | null) => resolve(err ? err.details : ''),
        );
      }),
    stream: (token) => client.ModelStreamInfer(md(token)),
    close: () => client.close(),
  };
}

/** One message of a `ModelStreamInfer` stream as the client decodes it. */
export interface StreamMessage {
  error_message: string;
  infer_response: any;
}

/**
 * Writes `requests` on one `ModelStreamInfer` stream, half-closes it and collects every message
 * until the server ends the stream.
 * @example const msgs = await streamAll(c, [{ model_name: 'ocr', inputs: [...], raw_input_contents: [...] }])
 */
export function streamAll(client: TestClient, requests: unknown[], token?: string): Promise<StreamMessage[]> {
  return new Promise((resolve, reject) => {
    const got: StreamMessage[] = [];
    const stream = client.stream(token);
    stream.on('data', (m: StreamMessage) => got.push(m));
    stream.on('error', reject);
    stream.on('end', () => resolve(got));
    for (const r of requests) stream.write(r);
    stream.end();
  });
}

/** `request` encoded as the service's `method` request message (for `callEncoded`). */
export function encodeRequest(method: string, request: unknown): Buffer {
  return inferenceService().service[method]!.requestSerialize(request);
}

/** A call's failure as `{ code, details }`; throws when the call succeeded. */
export function grpcFailure(p: Promise<unknown>): Promise<{ code: number; details: string }> {
  return p.then(
    () => {
      throw new Error('expected the call to fail');
    },
    (e: { code: number; details: string }) => ({ code: e.code, details: e.details }),
  );
}

/** `message` as one gRPC frame on the wire: the compressed flag (0 unless asked for), its length, the message. */
export function grpcFrame(message: Buffer, compressed = false): Buffer {
  const out = Buffer.alloc(5 + message.length);
  out.writeUInt8(compressed ? 1 : 0, 0);
  out.writeUInt32BE(message.length, 1);
  message.copy(out, 5);
  return out;
}

/**
 * A ModelStreamInfer stream opened over raw HTTP/2 by a client that never reads what the server sends (its window
 * fills, so the server's writes back up): write `grpcFrame`s to `stream`, destroy `session` when done.
 * @example const { session, stream } = unreadModelStream(g.address); stream.write(grpcFrame(encodeRequest('ModelInfer', r)))
 */
export function unreadModelStream(address: string): { session: ClientHttp2Session; stream: ClientHttp2Stream } {
  const session = connect(`http://${address}`);
  session.on('error', () => undefined);
  const stream = session.request({
    ':method': 'POST',
    ':path': '/inference.GRPCInferenceService/ModelStreamInfer',
    'content-type': 'application/grpc',
    te: 'trailers',
  });
  stream.on('error', () => undefined);
  stream.pause();
  return { session, stream };
}
