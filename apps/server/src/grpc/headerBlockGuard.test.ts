import { createServer, type Http2Server } from 'node:http2';
import { connect, type Socket } from 'node:net';
import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import { HeaderBlockGuard } from './headerBlockGuard.ts';
import { HPACK_MAX_STRING, markedFieldSize, OVERSIZED_FIELD_HEADER } from './oversizedFields.ts';
import { PacedConnection } from './pacedConnection.ts';

const PREFACE = Buffer.from('PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n', 'latin1');
const [DATA, HEADERS, SETTINGS, GOAWAY, CONTINUATION] = [0x0, 0x1, 0x4, 0x7, 0x9];
const [END_STREAM, END_HEADERS, PADDED, PRIORITY] = [0x1, 0x4, 0x8, 0x20];

function frame(type: number, flags: number, stream: number, payload: Buffer): Buffer {
  const head = Buffer.alloc(9);
  head.writeUIntBE(payload.length, 0, 3);
  head[3] = type;
  head[4] = flags;
  head.writeUInt32BE(stream, 5);
  return Buffer.concat([head, payload]);
}

function int(value: number, prefixBits: number, flags: number): Buffer {
  const max = (1 << prefixBits) - 1;
  if (value < max) return Buffer.of(flags | value);
  const bytes = [flags | max];
  for (value -= max; value >= 0x80; value = Math.floor(value / 0x80)) bytes.push((value % 0x80) | 0x80);
  bytes.push(value);
  return Buffer.from(bytes);
}
const str = (s: string) => Buffer.concat([int(s.length, 7, 0), Buffer.from(s, 'latin1')]);
/** An indexed field (a static or dynamic table entry). */
const indexed = (i: number) => int(i, 7, 0x80);
/** A literal field with a new name: with incremental indexing, without, or never indexed. */
const literal = (name: string, value: string, kind: 'indexing' | 'without' | 'never') =>
  Buffer.concat([Buffer.of(kind === 'indexing' ? 0x40 : kind === 'never' ? 0x10 : 0), str(name), str(value)]);

/** A header block as HEADERS + CONTINUATION frames of at most `size` bytes. */
function headerFrames(stream: number, block: Buffer, size: number, flags = END_STREAM): Buffer {
  const frames: Buffer[] = [];
  for (let at = 0; at === 0 || at < block.length; at += size) {
    const last = at + size >= block.length;
    frames.push(
      frame(
        at === 0 ? HEADERS : CONTINUATION,
        (at === 0 ? flags : 0) | (last ? END_HEADERS : 0),
        stream,
        block.subarray(at, at + size),
      ),
    );
  }
  return Buffer.concat(frames);
}

/** What the guard hands on for `bytes` read in the given pieces. */
function through(bytes: Buffer, cuts: number[]): Buffer {
  const guard = new HeaderBlockGuard(256 * 1024);
  const out: Buffer[] = [];
  let at = 0;
  for (const cut of [...cuts.filter((c) => c > 0 && c < bytes.length)].sort((a, b) => a - b).concat(bytes.length)) {
    out.push(...guard.push(bytes.subarray(at, cut)));
    at = cut;
  }
  return Buffer.concat([...out, ...guard.end()]);
}

/**
 * A model of an HPACK decoder's dynamic table (RFC 7541 §4), for blocks of plain literals and indexed fields: the
 * fields a block decodes to and the table after it. Enough to check that a rewritten block leaves the table as the
 * original left the client's encoder.
 */
function decode(block: Buffer, table: [string, string][]): [string, string][] {
  const fields: [string, string][] = [];
  const readInt = (prefixBits: number): number => {
    const max = (1 << prefixBits) - 1;
    let v = block[pos++]! & max;
    if (v < max) return v;
    for (let shift = 0; ; shift += 7) {
      const b = block[pos++]!;
      v += (b & 0x7f) * 2 ** shift;
      if (!(b & 0x80)) return v;
    }
  };
  const readStr = (): string => {
    expect(block[pos]! & 0x80, 'no Huffman in these blocks').toBe(0);
    const n = readInt(7);
    pos += n;
    return block.subarray(pos - n, pos).toString('latin1');
  };
  const entry = (i: number): [string, string] => {
    expect(i, 'a dynamic table entry').toBeGreaterThan(61);
    return table[i - 62]!;
  };
  let pos = 0;
  while (pos < block.length) {
    const b = block[pos]!;
    if (b & 0x80) fields.push(entry(readInt(7)));
    else {
      const withIndexing = (b & 0xc0) === 0x40;
      const i = readInt(withIndexing ? 6 : 4);
      const name = i === 0 ? readStr() : entry(i)[0];
      const field: [string, string] = [name, readStr()];
      fields.push(field);
      if (withIndexing) {
        table.unshift(field);
        // Evict from the end until the table fits 4,096 bytes; an entry larger than that empties it.
        const size = () => table.reduce((n, [k, v]) => n + k.length + v.length + 32, 0);
        while (table.length > 0 && size() > 4096) table.pop();
      }
    }
  }
  return fields;
}

/** The header block of the HEADERS/CONTINUATION frames in `bytes` (after the preface; no padding or priority). */
function blockOf(bytes: Buffer): Buffer {
  const parts: Buffer[] = [];
  for (let at = PREFACE.length; at < bytes.length;) {
    const length = bytes.readUIntBE(at, 3);
    parts.push(bytes.subarray(at + 9, at + 9 + length));
    at += 9 + length;
  }
  return Buffer.concat(parts);
}

const big = '#'.repeat(HPACK_MAX_STRING + 10);
const bigSize = String('x-big'.length + big.length + 32);

describe('HeaderBlockGuard', () => {
  it('hands on every byte as it came when no field is too long, however the reads split it', () => {
    const anyFrame = fc.oneof(
      fc.record({ type: fc.constantFrom(DATA, SETTINGS, GOAWAY), flags: fc.nat(255), len: fc.nat(40_000) }),
      fc.record({
        type: fc.constant(HEADERS),
        flags: fc.constantFrom(0, PADDED, END_HEADERS, END_HEADERS | END_STREAM, END_HEADERS | PRIORITY),
        len: fc.nat(70_000),
      }),
      fc.record({ type: fc.constant(CONTINUATION), flags: fc.constantFrom(0, END_HEADERS), len: fc.nat(20_000) }),
    );
    fc.assert(
      fc.property(
        fc.array(anyFrame, { maxLength: 12 }),
        fc.array(fc.nat(400_000), { maxLength: 30 }),
        (frames, cuts) => {
          // Zero bytes read as empty literal fields (and no padding): blocks that are read, with nothing too long.
          const bytes = Buffer.concat([PREFACE, ...frames.map((f) => frame(f.type, f.flags, 1, Buffer.alloc(f.len)))]);
          expect(through(bytes, cuts).equals(bytes)).toBe(true);
        },
      ),
      { numRuns: 200 },
    );
  });

  it('replaces a field too long for nghttp2 by a short mark, in one frame or many, read in any pieces', () => {
    const block = Buffer.concat([
      literal('x-before', '1', 'without'),
      literal('x-big', big, 'without'),
      literal('x-after', '2', 'never'),
    ]);
    for (const frameSize of [16_384, 100_000]) {
      const sent = Buffer.concat([PREFACE, headerFrames(1, block, frameSize)]);
      const whole = through(sent, []);
      fc.assert(
        fc.property(fc.array(fc.nat(sent.length), { maxLength: 20 }), (cuts) => {
          expect(through(sent, cuts).equals(whole)).toBe(true);
        }),
        { numRuns: 50 },
      );
      const table: [string, string][] = [];
      expect(decode(blockOf(whole), table)).toEqual([
        ['x-before', '1'],
        [OVERSIZED_FIELD_HEADER, bigSize],
        ['x-after', '2'],
      ]);
      expect(table).toEqual([]);
      expect(whole.length).toBeLessThan(200);
    }
  });

  it("leaves the decoder's dynamic table as the client's encoder left its own when the field was to be indexed", () => {
    const block = Buffer.concat([
      literal('x-before', '1', 'indexing'),
      literal('x-big', big, 'indexing'),
      literal('x-after', '2', 'indexing'),
    ]);
    const encoderTable: [string, string][] = [];
    decode(block, encoderTable);
    // The long entry emptied the encoder's table: only what came after it is left.
    expect(encoderTable).toEqual([['x-after', '2']]);
    const decoderTable: [string, string][] = [];
    const fields = decode(blockOf(through(Buffer.concat([PREFACE, headerFrames(1, block, 16_384)]), [])), decoderTable);
    expect(decoderTable).toEqual(encoderTable);
    expect(fields.map(([name]) => name)).toEqual(['x-before', OVERSIZED_FIELD_HEADER, 'x-after']);
    expect(markedFieldSize(fields[1]![1])).toBe(Number(bigSize));
  });

  it("keeps a HEADERS frame's priority and drops its padding when it rewrites the block", () => {
    const block = literal('x-big', big, 'without');
    const priority = Buffer.of(0, 0, 0, 0, 15);
    const payload = Buffer.concat([Buffer.of(3), priority, block, Buffer.alloc(3)]);
    const sent = Buffer.concat([PREFACE, frame(HEADERS, PADDED | PRIORITY | END_HEADERS | END_STREAM, 5, payload)]);
    const out = through(sent, [30, 70_000]).subarray(PREFACE.length);
    expect(out[3]).toBe(HEADERS);
    expect(out[4]).toBe(PRIORITY | END_HEADERS | END_STREAM);
    expect(out.readUInt32BE(5)).toBe(5);
    expect(out.subarray(9, 14).equals(priority)).toBe(true);
    expect(decode(out.subarray(14), [])).toEqual([[OVERSIZED_FIELD_HEADER, bigSize]]);
  });

  it("hands a block on as it came when another frame breaks it, or it comes in more frames than nghttp2's nine", () => {
    const block = literal('x-big', big, 'without');
    const broken = Buffer.concat([
      PREFACE,
      headerFrames(1, block, 16_384).subarray(0, 9 + 16_384),
      frame(DATA, 0, 1, Buffer.alloc(10)),
    ]);
    expect(through(broken, []).equals(broken)).toBe(true);
    const tooMany = Buffer.concat([PREFACE, headerFrames(1, Buffer.concat([block, Buffer.alloc(100_000)]), 16_384)]);
    expect(through(tooMany, []).equals(tooMany)).toBe(true);
  });
});

describe("HeaderBlockGuard ahead of Node's HTTP/2", () => {
  let server: Http2Server | undefined;
  let socket: Socket | undefined;
  afterEach(() => {
    socket?.destroy();
    server?.close();
  });

  it('a request with a field over 64 KiB is answered, and the next request on the connection reads the table right', async () => {
    server = createServer((req, res) => res.end(JSON.stringify(req.headers)));
    const net = (await import('node:net')).createServer((s) => server!.emit('connection', new PacedConnection(s)));
    await new Promise<void>((resolve) => net.listen(0, '127.0.0.1', resolve));
    socket = connect((net.address() as { port: number }).port, '127.0.0.1');
    const bodies = new Map<number, string>();
    const seen: number[] = [];
    let pending = Buffer.alloc(0);
    const done = new Promise<void>((resolve) =>
      socket!.on('data', (chunk: Buffer) => {
        pending = Buffer.concat([pending, chunk]);
        while (pending.length >= 9 && pending.length >= 9 + pending.readUIntBE(0, 3)) {
          const length = pending.readUIntBE(0, 3);
          const [type, flags, stream] = [pending[3]!, pending[4]!, pending.readUInt32BE(5)];
          seen.push(type);
          if (type === SETTINGS && !(flags & 1)) socket!.write(frame(SETTINGS, 1, 0, Buffer.alloc(0)));
          if (type === DATA)
            bodies.set(stream, (bodies.get(stream) ?? '') + pending.subarray(9, 9 + length).toString());
          if ((type === DATA && flags & END_STREAM && bodies.size === 2) || type === GOAWAY) resolve();
          pending = pending.subarray(9 + length);
        }
      }),
    );
    // Stream 1 enters x-before, then x-big (which empties the table), then x-after; stream 3 refers to the
    // newest entry (62): x-after only if the server's table is the client's.
    const first = Buffer.concat([
      indexed(2), // :method GET
      indexed(6), // :scheme http
      indexed(4), // :path /
      literal(':authority', 'studio', 'without'),
      literal('x-before', '1', 'indexing'),
      literal('x-big', big, 'indexing'),
      literal('x-after', '2', 'indexing'),
    ]);
    const second = Buffer.concat([
      indexed(2),
      indexed(6),
      indexed(4),
      literal(':authority', 'studio', 'without'),
      indexed(62),
    ]);
    socket.write(Buffer.concat([PREFACE, frame(SETTINGS, 0, 0, Buffer.alloc(0)), headerFrames(1, first, 16_384)]));
    socket.write(headerFrames(3, second, 16_384));
    await done;
    net.close();
    expect(seen).not.toContain(GOAWAY);
    const one = JSON.parse(bodies.get(1)!) as Record<string, string>;
    expect(one['x-before']).toBe('1');
    expect(one['x-after']).toBe('2');
    expect(one['x-big']).toBeUndefined();
    expect(markedFieldSize(one[OVERSIZED_FIELD_HEADER]!)).toBe(Number(bigSize));
    expect((JSON.parse(bodies.get(3)!) as Record<string, string>)['x-after']).toBe('2');
  });
});
