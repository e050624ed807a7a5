// gRPC's ceiling: a bare grpc-js server and client with a unary and a bidi-streaming method that pass bytes
// through (no protobuf, no studio, no engine) — what grpc-js's own HTTP/2 round trip costs on this machine.
import {
  type ClientDuplexStream,
  credentials,
  makeGenericClientConstructor,
  Server,
  ServerCredentials,
  type ServiceDefinition,
  type ServiceError,
} from '@grpc/grpc-js';

const bytes = {
  requestSerialize: (b: Buffer) => b,
  requestDeserialize: (b: Buffer) => b,
  responseSerialize: (b: Buffer) => b,
  responseDeserialize: (b: Buffer) => b,
};

const ECHO: ServiceDefinition = {
  Echo: { path: '/bench.Echo/Echo', requestStream: false, responseStream: false, ...bytes },
  Stream: { path: '/bench.Echo/Stream', requestStream: true, responseStream: true, ...bytes },
};

/** A reply the size of a small ModelInfer response (a few outputs' names, shapes and 64 bytes of data). */
const REPLY_BYTES = 160;

export interface BareEchoServer {
  address: string;
  close(): Promise<void>;
}

/**
 * A loopback grpc-js server: `Echo` answers each request with its first 160 bytes; `Stream` answers each
 * message the same way, calling `onWrite` just before it writes (the moment the studio's engine hands over a
 * response, in the studio's stream bench).
 * @example const s = await startBareEchoServer(); const c = bareEchoClient(s.address);
 */
export async function startBareEchoServer(onWrite?: () => void): Promise<BareEchoServer> {
  const server = new Server();
  server.addService(ECHO, {
    Echo: (call: { request: Buffer }, cb: (e: null, r: Buffer) => void) =>
      cb(null, call.request.subarray(0, REPLY_BYTES)),
    Stream: (call: NodeJS.ReadWriteStream & { write(b: Buffer): boolean; end(): void }) => {
      call.on('data', (b: Buffer) => {
        onWrite?.();
        call.write(b.subarray(0, REPLY_BYTES));
      });
      call.on('end', () => call.end());
    },
  });
  const port = await new Promise<number>((resolve, reject) =>
    server.bindAsync('127.0.0.1:0', ServerCredentials.createInsecure(), (err, p) =>
      err ? reject(new Error(`bare gRPC echo server cannot listen: ${err.message}`)) : resolve(p),
    ),
  );
  return {
    address: `127.0.0.1:${port}`,
    close: () => new Promise<void>((resolve) => server.tryShutdown(() => resolve())),
  };
}

export interface BareEchoClient {
  echo(request: Buffer): Promise<Buffer>;
  /** A bidi stream of the bare service. */
  stream(): ClientDuplexStream<Buffer, Buffer>;
  close(): void;
}

/** A grpc-js client of the bare echo service at `address`. */
export function bareEchoClient(address: string): BareEchoClient {
  const client = new (makeGenericClientConstructor(ECHO, 'Echo'))(address, credentials.createInsecure());
  return {
    echo: (request) =>
      new Promise((resolve, reject) =>
        client.makeUnaryRequest(
          '/bench.Echo/Echo',
          bytes.requestSerialize,
          bytes.responseDeserialize,
          request,
          (err: ServiceError | null, res?: Buffer) => (err ? reject(err) : resolve(res!)),
        ),
      ),
    stream: () => client.makeBidiStreamRequest('/bench.Echo/Stream', bytes.requestSerialize, bytes.responseDeserialize),
    close: () => client.close(),
  };
}
