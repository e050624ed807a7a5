import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer } from '../testing/testServer.ts';
import { healthFirst } from './healthFirst.ts';

/** Sends raw `request` bytes to `port` and returns the whole answer once the server closes (requests end with close). */
function raw(port: number, request: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1', () => socket.write(request));
    let text = '';
    socket.setEncoding('latin1');
    socket.on('data', (d: string) => (text += d));
    socket.on('end', () => resolve(text));
    socket.on('error', reject);
  });
}

/** An answer's status line and headers, with the Date header's value left out. */
const head = (answer: string) => answer.split('\r\n\r\n')[0]!.replace(/^Date: .*$/m, 'Date: -');

const get = (path: string, headers = 'Host: 127.0.0.1\r\n') =>
  `GET ${path} HTTP/1.1\r\n${headers}Connection: close\r\n\r\n`;

describe('healthFirst', () => {
  let server: Server;
  let port = 0;
  const reachedApp: string[] = [];
  beforeAll(async () => {
    const app = (req: IncomingMessage, res: ServerResponse) => {
      reachedApp.push(`${req.method} ${req.url} ${req.headers.host ?? ''}`);
      res.statusCode = 299;
      res.end();
    };
    server = createServer(healthFirst(app, undefined));
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    port = (server.address() as { port: number }).port;
  });
  afterAll(() => new Promise<void>((r) => server.close(() => r())));

  it('answers the plain checks itself, and hands every other form to the app', async () => {
    expect(await raw(port, get('/v2/health/live'))).toMatch(/^HTTP\/1.1 200 OK\r\n/);
    expect(await raw(port, get('/v2/health/ready'))).toMatch(/^HTTP\/1.1 200 OK\r\n/);
    expect(reachedApp).toEqual([]);
    const others = [
      get('/v2/health/live/'),
      get('/V2/health/live'),
      get('/v2/health/live?x=1'),
      get('/v2/health/live', 'Host: rebound.example\r\n'),
      get('/v2/health/live', 'Host: 127.0.0.1\r\nContent-Length: 3\r\n').replace(/\r\n\r\n$/, '\r\n\r\nabc'),
      get('/v2/health/live', 'Host: 127.0.0.1\r\nTransfer-Encoding: chunked\r\n').replace(
        /\r\n\r\n$/,
        '\r\n\r\n0\r\n\r\n',
      ),
      get('/v2/health/live').replace(/^GET/, 'HEAD'),
    ];
    for (const request of others) expect(await raw(port, request)).toMatch(/^HTTP\/1.1 299 /);
    expect(reachedApp).toHaveLength(others.length);
  });
});

describe('healthFirst in the served app', () => {
  let s: Awaited<ReturnType<typeof startTestServer>>;
  let port = 0;
  beforeAll(async () => {
    s = await startTestServer();
    port = s.port;
  });
  afterAll(async () => s?.close());

  it("answers with the headers the app's own route sends", async () => {
    // `/v2/health/live/` (a trailing slash) is left to Express's route, which answers it as the plain path.
    for (const path of ['/v2/health/live', '/v2/health/ready']) {
      const fast = head(await raw(port, get(path)));
      expect(fast).toBe(head(await raw(port, get(`${path}/`))));
      expect(fast).toMatch(/^HTTP\/1.1 200 OK\r\nX-Content-Type-Options: nosniff\r\n/);
    }
  });

  it('still refuses a check addressed to another host (DNS rebinding)', async () => {
    expect(await raw(port, get('/v2/health/live', 'Host: rebound.example\r\n'))).toMatch(/^HTTP\/1.1 403 /);
  });
});
