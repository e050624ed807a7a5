// HTTP/2 frames and HPACK blocks written by hand, for tests of what reads a connection's bytes ahead of Node's
// HTTP/2 (HeaderBlockGuard): plain literals only (no Huffman), and a model of the decoder's dynamic table.
import { expect } from 'vitest';

export const PREFACE = Buffer.from('PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n', 'latin1');
export const [DATA, HEADERS, SETTINGS, GOAWAY, CONTINUATION] = [0x0, 0x1, 0x4, 0x7, 0x9];
export const [END_STREAM, END_HEADERS, PADDED, PRIORITY] = [0x1, 0x4, 0x8, 0x20];

/** One HTTP/2 frame: its 9-byte header and `payload`. */
export function frame(type: number, flags: number, stream: number, payload: Buffer): Buffer {
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
export const indexed = (i: number) => int(i, 7, 0x80);
/** A literal field with a new name: with incremental indexing, without, or never indexed. */
export const literal = (name: string, value: string, kind: 'indexing' | 'without' | 'never') =>
  Buffer.concat([Buffer.of(kind === 'indexing' ? 0x40 : kind === 'never' ? 0x10 : 0), str(name), str(value)]);

/** A header block as HEADERS + CONTINUATION frames of at most `size` bytes. */
export function headerFrames(stream: number, block: Buffer, size: number, flags = END_STREAM): Buffer {
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

/**
 * A model of an HPACK decoder's dynamic table (RFC 7541 §4), for blocks of plain literals and indexed fields: the
 * fields a block decodes to and the table after it. Enough to check that a rewritten block leaves the table as the
 * original left the client's encoder.
 */
export function decode(block: Buffer, table: [string, string][]): [string, string][] {
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

/**
 * What Node's HTTP/2 reads in `bytes` (after the preface): each frame, except that a header block's frames count as
 * one entry (its stream, END_STREAM, priority, whether it ended, its fragments joined, padding dropped).
 */
export function logical(bytes: Buffer): unknown[] {
  const entries: unknown[] = [];
  let block: { stream: number; endStream: boolean; priority: string; ended: boolean; parts: Buffer[] } | undefined;
  const closeBlock = () => {
    if (block) entries.push({ ...block, parts: Buffer.concat(block.parts).toString('hex') });
    block = undefined;
  };
  for (let at = PREFACE.length; at < bytes.length;) {
    const length = bytes.readUIntBE(at, 3);
    const [type, flags, stream] = [bytes[at + 3]!, bytes[at + 4]!, bytes.readUInt32BE(at + 5)];
    let payload = bytes.subarray(at + 9, at + 9 + length);
    at += 9 + length;
    if (type === HEADERS || (type === CONTINUATION && block)) {
      if (type === HEADERS) {
        closeBlock();
        const padding = flags & PADDED ? payload[0]! : 0;
        if (flags & PADDED) payload = payload.subarray(1);
        const priority = flags & PRIORITY ? payload.subarray(0, 5).toString('hex') : '';
        payload = payload.subarray(priority.length / 2, payload.length - padding);
        block = { stream, endStream: (flags & END_STREAM) !== 0, priority, ended: false, parts: [] };
      }
      block!.parts.push(payload);
      if (flags & END_HEADERS) {
        block!.ended = true;
        closeBlock();
      }
    } else {
      closeBlock();
      entries.push({ type, flags, stream, payload: payload.toString('hex') });
    }
  }
  closeBlock();
  return entries;
}

/** The header block of the HEADERS/CONTINUATION frames in `bytes` (after the preface; no padding or priority). */
export function blockOf(bytes: Buffer): Buffer {
  const parts: Buffer[] = [];
  for (let at = PREFACE.length; at < bytes.length;) {
    const length = bytes.readUIntBE(at, 3);
    parts.push(bytes.subarray(at + 9, at + 9 + length));
    at += 9 + length;
  }
  return Buffer.concat(parts);
}
