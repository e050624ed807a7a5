import { credentials, Metadata, type Client, type ClientDuplexStream, type ServiceError } from '@grpc/grpc-js';
import { inferenceService } from './loadService.ts';

/** A real gRPC client of the studio's service (grpc-js over a socket), with promise-returning unary calls. */
export interface TestClient {
  call<T = any>(method: string, request: unknown, token?: string): Promise<T>;
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
    call: (method, request, token) => new Promise((resolve, reject) => {
      client[method](request, md(token), (err: ServiceError | null, res: any) => (err ? reject(err) : resolve(res)));
    }),
    stream: (token) => client.ModelStreamInfer(md(token)),
    close: () => client.close(),
  };
}
