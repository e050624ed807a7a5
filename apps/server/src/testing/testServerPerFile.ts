import { afterAll, beforeAll } from 'vitest';
import { removeTempDir } from './tempDir.ts';
import { startTestServer } from './testServer.ts';

type TestServer = Awaited<ReturnType<typeof startTestServer>>;

/**
 * The test server of a test file (or of the `describe` it is called in): started before its tests, closed after
 * them with its repository removed. What it returns stands for that server once it has started.
 * @example const s = testServerPerFile(); it('answers', async () => expect((await call(`${s.url}/v2`)).status).toBe(200));
 */
export function testServerPerFile(opts: Parameters<typeof startTestServer>[0] = {}): TestServer {
  let server: TestServer | undefined;
  beforeAll(async () => {
    server = await startTestServer(opts);
  });
  afterAll(async () => {
    await server?.close();
    if (server) removeTempDir(server.repo);
  });
  return new Proxy({} as TestServer, {
    get: (_, key) => {
      if (!server) throw new Error('the test server starts in beforeAll: use it inside a test or a hook');
      const value: unknown = Reflect.get(server, key);
      return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(server) : value;
    },
  });
}
