import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  blockOf,
  CONTINUATION,
  DATA,
  decode,
  END_HEADERS,
  END_STREAM,
  frame,
  GOAWAY,
  HEADERS,
  headerFrames,
  literal,
  logical,
  PADDED,
  PREFACE,
  PRIORITY,
  SETTINGS,
} from '../testing/http2Frames.ts';
import { HeaderBlockGuard, MAX_BLOCK_BYTES, MAX_BLOCK_FRAMES } from './headerBlockGuard.ts';
import { HPACK_MAX_STRING, markedFieldSize, OVERSIZED_FIELD_HEADER } from './oversizedFields.ts';

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

const big = '#'.repeat(HPACK_MAX_STRING + 10);
const bigSize = String('x-big'.length + big.length + 32);

describe('HeaderBlockGuard', () => {
  it('hands on what was sent when no field is too long, however the reads split it', () => {
    const anyFrame = fc.oneof(
      fc.record({ type: fc.constantFrom(DATA, SETTINGS, GOAWAY), flags: fc.nat(255), len: fc.nat(40_000) }),
      fc.record({
        type: fc.constant(HEADERS),
        flags: fc.constantFrom(0, END_HEADERS, END_HEADERS | END_STREAM, END_HEADERS | PRIORITY, PADDED | PRIORITY),
        len: fc.integer({ min: 6, max: 70_000 }),
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
          const out = through(bytes, cuts);
          expect(logical(out)).toEqual(logical(bytes));
          // With no header block that could hold a long field, every byte goes on as it came.
          if (!frames.some((f) => f.type === HEADERS && (!(f.flags & END_HEADERS) || f.len > HPACK_MAX_STRING)))
            expect(out.equals(bytes)).toBe(true);
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

  it('stops reading a block past its bounds: the rest goes on unread, for Node to end the connection', () => {
    // A string longer than any block, then CONTINUATION frames without end: nothing of it would reach nghttp2.
    const head = Buffer.concat([Buffer.of(0), Buffer.from([0x01, 0x61]), Buffer.from([0x7f, 0xff, 0xff, 0xff, 0x7f])]);
    const flood = Array.from({ length: MAX_BLOCK_FRAMES + 5 }, () => frame(CONTINUATION, 0, 1, Buffer.alloc(100)));
    const sent = Buffer.concat([PREFACE, frame(HEADERS, END_STREAM, 1, head), ...flood]);
    const out = through(sent, [5000, 100_000]);
    // The frames past the bound go on as they came (Node's HTTP/2 ends the connection at its ninth).
    const tail = Buffer.concat(flood.slice(MAX_BLOCK_FRAMES - 1));
    expect(out.subarray(out.length - tail.length).equals(tail)).toBe(true);
    // A value of 16 MiB: its block's last frame, past the bound, goes on as it came; one of 8 MB is read.
    const value = literal('x', '#'.repeat(MAX_BLOCK_BYTES), 'without');
    const sentOver = Buffer.concat([PREFACE, headerFrames(1, value, 200_000)]);
    const over = through(sentOver, []);
    const last = sentOver.subarray(-(9 + (value.length % 200_000)));
    expect(over.subarray(over.length - last.length).equals(last)).toBe(true);
    const under = literal('x', '#'.repeat(8_000_000), 'without');
    expect(decode(blockOf(through(Buffer.concat([PREFACE, headerFrames(1, under, 200_000)]), [])), [])).toEqual([
      [OVERSIZED_FIELD_HEADER, String(1 + 8_000_000 + 32)],
    ]);
  });

  it('hands on the frames it does not hold as the pieces they were read in, not one per frame', () => {
    const frames = Array.from({ length: 2000 }, () => frame(DATA, 0, 1, Buffer.alloc(100, 7)));
    const chunk = Buffer.concat([PREFACE, ...frames]);
    const pieces = new HeaderBlockGuard(256 * 1024).push(chunk);
    expect(pieces).toHaveLength(1);
    expect(pieces[0]!.equals(chunk)).toBe(true);
  });

  it('hands on a block of many small fields in a few pieces, not one per field', () => {
    const block = Buffer.alloc(200_000, 0x82); // 200,000 indexed fields (:method GET)
    const guard = new HeaderBlockGuard(256 * 1024);
    const pieces = [PREFACE, headerFrames(1, block, 100_000)].flatMap((b) => guard.push(b));
    expect(Buffer.concat(pieces).length).toBe(PREFACE.length + 200_000 + 2 * 9);
    expect(pieces.length).toBeLessThan(10);
  });

  it('takes any bytes in a header block without throwing, and hands on every frame after it', () => {
    fc.assert(
      fc.property(
        fc.uint8Array({ maxLength: 200_000 }),
        fc.array(fc.nat(300_000), { maxLength: 10 }),
        (bytes, cuts) => {
          const after = frame(DATA, END_STREAM, 1, Buffer.from('after'));
          const sent = Buffer.concat([PREFACE, headerFrames(1, Buffer.from(bytes), 70_000), after]);
          const out = through(sent, cuts);
          expect(out.subarray(out.length - after.length).equals(after)).toBe(true);
        },
      ),
      { numRuns: 100 },
    );
  });

  it('sends a block broken off by another frame as far as it came, unended, for Node to refuse', () => {
    const block = literal('x-big', big, 'without');
    const broken = Buffer.concat([
      PREFACE,
      headerFrames(1, Buffer.concat([literal('a', 'b', 'without'), block]), 16_384).subarray(0, 9 + 16_384),
      frame(DATA, 0, 1, Buffer.alloc(10)),
    ]);
    const out = logical(through(broken, []));
    expect(out).toEqual([
      { stream: 1, endStream: true, priority: '', ended: false, parts: literal('a', 'b', 'without').toString('hex') },
      { type: DATA, flags: 0, stream: 1, payload: '00'.repeat(10) },
    ]);
  });

  it('reads a block of any length in the memory of its longest ordinary field (3 MB in 190 frames)', () => {
    const huge = literal('x-huge', '#'.repeat(3_000_000), 'without');
    const sent = Buffer.concat([PREFACE, headerFrames(1, Buffer.concat([literal('a', 'b', 'without'), huge]), 16_384)]);
    const guard = new HeaderBlockGuard(256 * 1024);
    const out: Buffer[] = [];
    let held = 0;
    for (let at = 0; at < sent.length; at += 65_536) {
      out.push(...guard.push(sent.subarray(at, at + 65_536)));
      held = Math.max(
        held,
        (guard as unknown as { block?: { fields: { pending: number } } }).block?.fields.pending ?? 0,
      );
    }
    expect(held).toBeLessThan(100);
    expect(decode(blockOf(Buffer.concat(out)), [])).toEqual([
      ['a', 'b'],
      [OVERSIZED_FIELD_HEADER, String('x-huge'.length + 3_000_000 + 32)],
    ]);
    // One HEADERS frame: Node's HTTP/2 would have ended the connection at the ninth CONTINUATION.
    expect(Buffer.concat(out).length).toBeLessThan(PREFACE.length + 100);
  });
});
