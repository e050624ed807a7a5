import { connect as tcpConnect } from 'node:net';
import type { WebSocket } from 'ws';
import { describe, expect, it } from 'vitest';
import { testServerPerFile } from '../testing/testServerPerFile.ts';

const s = testServerPerFile();

/** A masked client text frame (RFC 6455) with an all-zero mask, so the payload goes as it is. */
function textFrame(text: string): Buffer {
  const payload = Buffer.from(text);
  return Buffer.concat([Buffer.from([0x81, 0x80 | payload.length]), Buffer.alloc(4), payload]);
}

describe('WebSocket messages read in one chunk', () => {
  it('are handled one per turn of the event loop, so other clients get in between', async () => {
    // Counts, on the server, the messages handled before the turn after the first one.
    const seen = new Promise<{ total: number; byNextTurn: number }>((resolve) => {
      s.socket.wss.once('connection', (ws: WebSocket) => {
        let total = 0;
        ws.on('message', () => {
          if (total++ === 0) setImmediate(() => resolve({ total: 0, byNextTurn: total }));
        });
      });
    });
    const u = new URL(s.url);
    const sock = tcpConnect(Number(u.port), u.hostname);
    await new Promise<void>((resolve) => sock.once('connect', resolve));
    sock.write(
      `GET /ws HTTP/1.1\r\nHost: ${u.host}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n` +
        'Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n',
    );
    await new Promise<void>((resolve) => sock.once('data', () => resolve()));
    // 1,000 pings in one write: 36 KB, one read on the server.
    sock.write(Buffer.concat(Array.from({ length: 1000 }, (_, i) => textFrame(`{"type":"ping","at":${i}}`))));
    const { byNextTurn } = await seen;
    sock.destroy();
    // ws's default emits all 1,000 in the turn that read them.
    expect(byNextTurn).toBeLessThan(10);
  });
});
