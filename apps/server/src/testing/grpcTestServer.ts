import { startGrpcServer, type GrpcServer } from '../grpc/server.ts';
import { connectTestClient, type TestClient } from './grpcTestClient.ts';
import { removeTempDir } from './tempDir.ts';
import { startTestServer } from './testServer.ts';

/** A studio over a test repository, its gRPC endpoint on a free port, and a client connected to it. */
export interface GrpcTestServer {
  s: Awaited<ReturnType<typeof startTestServer>>;
  g: GrpcServer;
  c: TestClient;
  /** Closes the client, both servers, and removes the repository. */
  close(): Promise<void>;
}

/**
 * Starts the HTTP test server (`startTestServer`), gRPC on it and a client.
 * @example let t: GrpcTestServer; beforeAll(async () => { t = await startGrpcTestServer(); }); afterAll(() => t?.close());
 */
export async function startGrpcTestServer(opts: Parameters<typeof startTestServer>[0] = {}): Promise<GrpcTestServer> {
  const s = await startTestServer(opts);
  const g = await startGrpcServer(s.studio, '127.0.0.1', 0);
  const c = connectTestClient(g.address);
  return {
    s,
    g,
    c,
    async close() {
      c.close();
      await g.close();
      await s.close();
      removeTempDir(s.repo);
    },
  };
}
