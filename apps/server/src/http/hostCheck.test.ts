import { request } from 'node:http';
import { connect as tcpConnect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connect } from '../testing/wsTestClient.ts';
import { hostAllowed } from './auth.ts';
import { startTestServer } from '../testing/testServer.ts';

/** GET with an explicit Host header (fetch does not let a client pick it). */
function getWithHost(url: string, host: string, headers: Record<string, string> = {}): Promise<number> {
  return new Promise((resolve, reject) => {
    const u = new URL(url);
    const req = request(
      { hostname: u.hostname, port: u.port, path: u.pathname, headers: { host, ...headers } },
      (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      },
    );
    req.on('error', reject);
    req.end();
  });
}

describe('hostAllowed (DNS rebinding)', () => {
  it('accepts loopback names and refuses others when there is no token', () => {
    for (const h of ['127.0.0.1:8080', 'localhost:8080', 'localhost', '[::1]:8080', '127.0.0.2'])
      expect(hostAllowed(h, undefined), h).toBe(true);
    for (const h of [
      'evil.example:8080',
      'evil.example',
      '10.0.0.1:8080',
      'localhost:1@evil.com',
      'localhost evil',
      '',
      undefined,
    ])
      expect(hostAllowed(h, undefined), String(h)).toBe(false);
  });

  it('leaves the decision to the token when there is one', () => {
    expect(hostAllowed('studio.example.com', 'secret')).toBe(true);
  });
});

describe('a server without a token', () => {
  let s: Awaited<ReturnType<typeof startTestServer>>;
  beforeAll(async () => {
    s = await startTestServer();
  });
  afterAll(async () => s?.close());

  it('refuses HTTP requests addressed to another host name and serves loopback ones', async () => {
    expect(await getWithHost(`${s.url}/api/health`, 'rebound.example:80')).toBe(403);
    expect(await getWithHost(`${s.url}/api/health`, new URL(s.url).host)).toBe(200);
  });

  it('judges an absolute-form request by the host in its target, not by its Host header', async () => {
    const u = new URL(s.url);
    const status = (text: string) =>
      new Promise<string>((resolve, reject) => {
        const sock = tcpConnect(Number(u.port), u.hostname);
        let got = '';
        sock.on('data', (d) => (got += d.toString('latin1')));
        sock.on('error', reject);
        sock.on('close', () => resolve(got.slice(9, 12)));
        sock.write(text);
      });
    const local = `Host: ${u.host}\r\nConnection: close\r\n\r\n`;
    expect(await status(`GET http://rebound.example/api/health HTTP/1.1\r\n${local}`)).toBe('403');
    expect(await status(`GET http://${u.host}/api/health HTTP/1.1\r\n${local}`)).toBe('200');
  });

  it('refuses a WebSocket upgrade addressed to another host name', async () => {
    await expect(
      connect(s.url, { headers: { host: 'rebound.example', origin: 'http://rebound.example' } }),
    ).rejects.toThrow(/HTTP 403/);
  });
});
