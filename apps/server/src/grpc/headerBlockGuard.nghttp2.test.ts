// The header block guard ahead of Node's real HTTP/2 (nghttp2 decodes what the guard hands on): a raw client writes
// frames and HPACK by hand, the server answers each request's headers as it read them.
import { createServer, type Http2Server } from 'node:http2';
import { connect, createServer as createNetServer, type Server as NetServer, type Socket } from 'node:net';
import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import {
  CONTINUATION,
  DATA,
  decode,
  END_STREAM,
  frame,
  GOAWAY,
  HEADERS,
  headerFrames,
  indexed,
  literal,
  PADDED,
  PREFACE,
  SETTINGS,
} from '../testing/http2Frames.ts';
import { MAX_BLOCK_FRAMES } from './headerBlockGuard.ts';
import { HPACK_MAX_STRING, markedFieldSize, OVERSIZED_FIELD_HEADER } from './oversizedFields.ts';
import { PacedConnection } from './pacedConnection.ts';

const WINDOW_UPDATE = 0x8;
const big = '#'.repeat(HPACK_MAX_STRING + 10);
const bigSize = String('x-big'.length + big.length + 32);

describe("HeaderBlockGuard ahead of Node's HTTP/2", () => {
  let server: Http2Server | undefined;
  let net: NetServer | undefined;
  let socket: Socket | undefined;
  afterEach(() => {
    socket?.destroy();
    net?.close();
    server?.close();
  });

  /**
   * Sends `bytes` (after the preface and a SETTINGS frame) to a Node HTTP/2 server reached through a PacedConnection
   * whose handler answers each request's headers as JSON; resolves with the bodies by stream once `streams` have
   * ended, or at a GOAWAY or the connection's close, with the frame types seen.
   */
  async function exchange(bytes: Buffer[], streams: number): Promise<{ bodies: Map<number, string>; seen: number[] }> {
    server = createServer({ settings: { maxFrameSize: 256 * 1024, maxHeaderListSize: 1 << 20 } }, (req, res) =>
      res.end(JSON.stringify({ headers: req.headers, raw: req.rawHeaders })),
    );
    net = createNetServer((s) => server!.emit('connection', new PacedConnection(s)));
    await new Promise<void>((resolve) => net!.listen(0, '127.0.0.1', resolve));
    socket = connect((net.address() as { port: number }).port, '127.0.0.1');
    const bodies = new Map<number, string>();
    const ended = new Set<number>();
    const seen: number[] = [];
    let pending = Buffer.alloc(0);
    let settled: () => void;
    const settings = new Promise<void>((resolve) => (settled = resolve));
    const done = new Promise<void>((resolve) => {
      socket!.once('close', () => resolve());
      socket!.on('data', (chunk: Buffer) => {
        pending = Buffer.concat([pending, chunk]);
        while (pending.length >= 9 && pending.length >= 9 + pending.readUIntBE(0, 3)) {
          const length = pending.readUIntBE(0, 3);
          const [type, flags, stream] = [pending[3]!, pending[4]!, pending.readUInt32BE(5)];
          seen.push(type);
          if (type === SETTINGS && !(flags & 1)) {
            socket!.write(frame(SETTINGS, 1, 0, Buffer.alloc(0)));
            settled();
          }
          if (type === DATA)
            bodies.set(stream, (bodies.get(stream) ?? '') + pending.subarray(9, 9 + length).toString());
          if (type === DATA && flags & END_STREAM) ended.add(stream);
          if (ended.size === streams || type === GOAWAY) resolve();
          pending = pending.subarray(9 + length);
        }
      });
    });
    // Windows of 1 GiB for the connection and each stream: this client never sends WINDOW_UPDATE as it reads.
    const window = Buffer.alloc(4);
    window.writeUInt32BE(1 << 30);
    socket.write(
      Buffer.concat([
        PREFACE,
        frame(SETTINGS, 0, 0, Buffer.concat([Buffer.of(0, 4), window])), // SETTINGS_INITIAL_WINDOW_SIZE
        frame(WINDOW_UPDATE, 0, 0, window),
      ]),
    );
    // The server's SETTINGS acknowledged first, so that no frame of ours breaks into a header block.
    await settings;
    for (const b of bytes) socket.write(b);
    await done;
    return { bodies, seen };
  }

  const request = (...fields: Buffer[]) =>
    Buffer.concat([indexed(2), indexed(6), indexed(4), literal(':authority', 'studio', 'without'), ...fields]);

  it('a request with a field over 64 KiB is answered, and the next request on the connection reads the table right', async () => {
    // Stream 1 enters x-before, then x-big (which empties the table), then x-after; stream 3 refers to the
    // newest entry (62): x-after only if the server's table is the client's.
    const first = request(
      literal('x-before', '1', 'indexing'),
      literal('x-big', big, 'indexing'),
      literal('x-after', '2', 'indexing'),
    );
    const { bodies, seen } = await exchange(
      [headerFrames(1, first, 16_384), headerFrames(3, request(indexed(62)), 16_384)],
      2,
    );
    expect(seen).not.toContain(GOAWAY);
    const one = (JSON.parse(bodies.get(1)!) as { headers: Record<string, string> }).headers;
    expect(one['x-before']).toBe('1');
    expect(one['x-after']).toBe('2');
    expect(one['x-big']).toBeUndefined();
    expect(markedFieldSize(one[OVERSIZED_FIELD_HEADER]!)).toBe(Number(bigSize));
    expect((JSON.parse(bodies.get(3)!) as { headers: Record<string, string> }).headers['x-after']).toBe('2');
  });

  it('requests with fields of any size and kind read in Node as sent, the long ones as marks (property)', async () => {
    const field = fc.record({
      size: fc.constantFrom(1, 300, 5_000, 70_000, 200_000),
      kind: fc.constantFrom('indexing' as const, 'without' as const, 'never' as const),
      reference: fc.boolean(),
    });
    const pseudo = () => [
      literal(':method', 'GET', 'without'),
      literal(':scheme', 'http', 'without'),
      literal(':path', '/', 'without'),
      literal(':authority', 'studio', 'without'),
    ];
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.array(field, { minLength: 1, maxLength: 4 }), { minLength: 1, maxLength: 3 }),
        fc.constantFrom(16_384, 100_000),
        async (requests, frameSize) => {
          // The client's encoder's table, kept by the model as each field is written.
          const table: [string, string][] = [];
          const expected: [string, string][][] = [];
          const sent = requests.map((fields, r) => {
            const want: [string, string][] = [];
            const parts = fields.map((f, i) => {
              const piece =
                f.reference && table.length > 0 ? indexed(62) : literal(`x-${r}-${i}`, '#'.repeat(f.size), f.kind);
              const [[name, value]] = decode(piece, table) as [[string, string]];
              want.push(
                value.length > HPACK_MAX_STRING
                  ? [OVERSIZED_FIELD_HEADER, String(name.length + value.length + 32)]
                  : [name, value],
              );
              return piece;
            });
            expected.push(want);
            return headerFrames(2 * r + 1, Buffer.concat([...pseudo(), ...parts]), frameSize);
          });
          const { bodies, seen } = await exchange(sent, requests.length);
          expect(seen).not.toContain(GOAWAY);
          expected.forEach((want, r) => {
            const raw = (JSON.parse(bodies.get(2 * r + 1)!) as { raw: string[] }).raw;
            const got: [string, string][] = [];
            for (let k = 0; k < raw.length; k += 2) if (!raw[k]!.startsWith(':')) got.push([raw[k]!, raw[k + 1]!]);
            expect(
              got.map(([n, v]) => (n === OVERSIZED_FIELD_HEADER ? [n, String(markedFieldSize(v))] : [n, v])),
            ).toEqual(want);
          });
          socket?.destroy();
          net?.close();
          server?.close();
        },
      ),
      { numRuns: 25 },
    );
  });

  it('a HEADERS frame whose padding runs past it still ends the connection, as without the guard', async () => {
    const block = request();
    const payload = Buffer.concat([Buffer.of(200), block]);
    const { seen } = await exchange([frame(HEADERS, PADDED | END_STREAM, 1, payload)], 1);
    expect(seen).toContain(GOAWAY);
  });

  it('a CONTINUATION flood inside a long string still ends the connection', async () => {
    const head = Buffer.concat([request(), Buffer.of(0, 0x01, 0x61, 0x7f, 0xff, 0xff, 0xff, 0x7f)]);
    const flood = Array.from({ length: MAX_BLOCK_FRAMES + 20 }, () => frame(CONTINUATION, 0, 1, Buffer.alloc(100)));
    const { seen } = await exchange([frame(HEADERS, END_STREAM, 1, head), ...flood], 1);
    expect(seen).toContain(GOAWAY);
  });
});
