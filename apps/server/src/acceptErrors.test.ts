// A connection the kernel could not hand over (EMFILE, ENOBUFS…) costs that connection, never the server.
import { constants } from 'node:os';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startServer, type RunningServer } from './main.ts';
import { tempDir } from './testing/tempDir.ts';

const lines: string[] = [];
let s: RunningServer;
beforeAll(async () => {
  s = await startServer({
    repo: tempDir('studio-accept-'),
    port: 0,
    host: '127.0.0.1',
    webDist: '/nonexistent',
    log: (l) => lines.push(l),
  });
}, 60_000);
afterAll(async () => {
  await s?.close();
});

// libuv reports a failed accept to Node's own connection callback on the listening handle, with a negative errno.
function failAccept(errno: number): void {
  const handle = (s.server as unknown as { _handle: { onconnection(err: number): void } })._handle;
  handle.onconnection(-errno);
}

it('logs a failed accept and goes on serving', async () => {
  expect(() => failAccept(constants.errno.ENOBUFS)).not.toThrow();
  for (let i = 0; i < 50; i++) failAccept(constants.errno.EMFILE);
  expect(lines).toEqual([
    expect.stringMatching(/^HTTP: a connection could not be accepted: ENOBUFS.*still listening$/),
  ]);
  const res = await fetch(`${s.url}/v2/health/live`);
  expect(res.status).toBe(200);
});
