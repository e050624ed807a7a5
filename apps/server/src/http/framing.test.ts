import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer } from '../testing/testServer.ts';

let s: Awaited<ReturnType<typeof startTestServer>>;
beforeAll(async () => {
  s = await startTestServer();
});
afterAll(async () => s?.close());

/** Writes `text` on a connection of its own; resolves with everything the server sent until it closed. */
function exchange(text: string): Promise<string> {
  const u = new URL(s.url);
  return new Promise((resolve, reject) => {
    const sock = connect(Number(u.port), u.hostname);
    let got = '';
    sock.on('data', (d) => (got += d.toString('latin1')));
    sock.on('error', reject);
    sock.on('close', () => resolve(got));
    sock.write(text);
  });
}

describe('ambiguous framing', () => {
  it('refuses an HTTP/1.0 request with Transfer-Encoding and runs nothing pipelined behind it', async () => {
    const host = new URL(s.url).host;
    const behind = `GET /v2/models/smuggled HTTP/1.1\r\nHost: ${host}\r\nConnection: close\r\n\r\n`;
    const got = await exchange(
      `POST /v2/models/m/infer HTTP/1.0\r\nHost: ${host}\r\nConnection: keep-alive\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n${behind}`,
    );
    expect(got).toMatch(/^HTTP\/1\.1 400 /);
    expect(got).toContain('Transfer-Encoding');
    // Node's parser read a chunked body and the next request: that one was answered (404 'smuggled').
    expect(got.split('HTTP/1.1 ').length - 1).toBe(1);
    expect(got).not.toContain('smuggled');
  });
});
