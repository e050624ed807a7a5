import { createServer, type Server } from 'node:http';
import { type AddressInfo, connect, type Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { KEEP_ALIVE_GRACE_MS, KEEP_ALIVE_HINT_S, keepAliveHint } from './keepAlive.ts';

let server: Server | undefined;
afterEach(async () => {
  server?.closeAllConnections();
  await new Promise((r) => server?.close(r));
});

/** Sends `GET /` on `socket` and resolves with the response's head, or with `closed` when the server ends it first. */
function get(socket: Socket): Promise<string> {
  return new Promise((resolve) => {
    if (socket.destroyed || socket.readableEnded) return resolve('closed');
    let got = '';
    const onData = (d: Buffer) => {
      got += d.toString();
      if (got.includes('\r\n\r\nok')) done(got);
    };
    const done = (r: string) => {
      socket.off('data', onData).off('close', onClose).off('error', onClose);
      resolve(r);
    };
    const onClose = () => done('closed');
    socket.on('data', onData).on('close', onClose).on('error', onClose);
    socket.write('GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n');
  });
}

describe('keepAliveHint', () => {
  it('tells clients the hint and keeps an idle connection past it: a request sent 2 s after the hint is answered', async () => {
    server = createServer();
    server.on(
      'request',
      keepAliveHint(server, (_req, res) => res.end('ok')),
    );
    await new Promise<void>((r) => server!.listen(0, '127.0.0.1', r));
    expect(server.keepAliveTimeout).toBe(KEEP_ALIVE_HINT_S * 1000 + KEEP_ALIVE_GRACE_MS);
    const socket = connect((server.address() as AddressInfo).port, '127.0.0.1');
    const first = await get(socket);
    expect(first).toMatch(/\r\nKeep-Alive: timeout=5\r\n/);
    expect(first.match(/Keep-Alive/g)).toHaveLength(1);
    // A client that trusts the hint may still send at its end, late by a busy loop; Node alone closes at hint + 1 s.
    await new Promise((r) => setTimeout(r, KEEP_ALIVE_HINT_S * 1000 + 2000));
    expect(await get(socket)).toMatch(/^HTTP\/1\.1 200 OK/);
    socket.destroy();
  }, 30_000);

  it('leaves the hint out of a response that closes its connection', async () => {
    server = createServer();
    server.on(
      'request',
      keepAliveHint(server, (_req, res) => res.end('ok')),
    );
    await new Promise<void>((r) => server!.listen(0, '127.0.0.1', r));
    const socket = connect((server.address() as AddressInfo).port, '127.0.0.1');
    const answer = await new Promise<string>((resolve) => {
      let got = '';
      socket.on('data', (d) => (got += d.toString())).on('close', () => resolve(got));
      socket.write('GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n');
    });
    expect(answer).toMatch(/^HTTP\/1\.1 200 OK/);
    expect(answer).not.toMatch(/Keep-Alive/i);
  });
});
