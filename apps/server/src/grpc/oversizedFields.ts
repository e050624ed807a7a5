// HPACK (RFC 7541) read just far enough to find the header fields Node's HTTP/2 cannot decode, and to put a short
// mark in their place. nghttp2 (inside Node, fixed at build: NGHTTP2_HD_MAX_NV) ends a whole connection with GOAWAY
// COMPRESSION_ERROR on a name or value longer than 64 KiB as sent, before any callback of Node's runs; gRPC C-core
// clients retry such a request as never processed until their deadline, or without end. Triton (C-core's HPACK
// parser) reads past the field and refuses the one request, RESOURCE_EXHAUSTED, over its hard metadata limit. With
// the field replaced by a mark, Node decodes the block and `refuseLargeMetadata` gives Triton's answer.

/** The longest string (a name or a value, as sent: Huffman-coded or not) nghttp2's HPACK decoder takes. */
export const HPACK_MAX_STRING = 65536;
/** The header a replaced field becomes; its value is the field's HPACK size (name + value + 32), in digits. */
export const OVERSIZED_FIELD_HEADER = 'x-studio-oversized-field';
/**
 * The largest dynamic table a client may keep with Node's HTTP/2 (its SETTINGS_HEADER_TABLE_SIZE, 4,096, is the
 * most a client's table size update may ask for). An entry larger than the table empties it (RFC 7541 §4.4).
 */
const MAX_TABLE_SIZE = 4096;
/** HPACK's per-entry overhead. */
const ENTRY_OVERHEAD = 32;

interface Parsed {
  value: number;
  next: number;
}

/** An HPACK integer with an `prefixBits`-bit prefix at `pos`, or undefined when the block ends inside it. */
function readInt(block: Uint8Array, pos: number, prefixBits: number): Parsed | undefined {
  if (pos >= block.length) return undefined;
  const max = (1 << prefixBits) - 1;
  let value = block[pos]! & max;
  let next = pos + 1;
  if (value < max) return { value, next };
  // Up to 2^35 (a string can never be that long in a block the guard holds): no precision lost.
  for (let shift = 0; shift <= 28; shift += 7) {
    if (next >= block.length) return undefined;
    const b = block[next++]!;
    value += (b & 0x7f) * 2 ** shift;
    if ((b & 0x80) === 0) return { value, next };
  }
  return undefined;
}

/** The length of the HPACK string at `pos` (as sent) and where it ends, or undefined when it runs past the block. */
function readString(block: Uint8Array, pos: number): Parsed | undefined {
  const len = readInt(block, pos, 7);
  if (!len || len.next + len.value > block.length) return undefined;
  return { value: len.value, next: len.next + len.value };
}

function encodeInt(value: number, prefixBits: number, flags: number): number[] {
  const max = (1 << prefixBits) - 1;
  if (value < max) return [flags | value];
  const bytes = [flags | max];
  let rest = value - max;
  while (rest >= 0x80) {
    bytes.push((rest % 0x80) | 0x80);
    rest = Math.floor(rest / 0x80);
  }
  bytes.push(rest);
  return bytes;
}

/** A plain (not Huffman-coded) HPACK string. */
function encodeString(text: string): Buffer {
  const bytes = Buffer.from(text, 'latin1');
  return Buffer.concat([Buffer.from(encodeInt(bytes.length, 7, 0)), bytes]);
}

/** One field too long for nghttp2: where it lies in the block, whether it enters the dynamic table, its HPACK size. */
interface Oversized {
  start: number;
  end: number;
  indexed: boolean;
  neverIndexed: boolean;
  size: number;
}

/**
 * The fields of a header block longer than nghttp2 takes, or undefined when the block holds none or cannot be read
 * (then Node's HTTP/2 judges it as it is). A name taken from a table counts 0 towards a field's size.
 */
function oversizedFields(block: Uint8Array): Oversized[] | undefined {
  const found: Oversized[] = [];
  let pos = 0;
  while (pos < block.length) {
    const first = block[pos]!;
    if (first & 0x80) {
      // Indexed field.
      const index = readInt(block, pos, 7);
      if (!index) return undefined;
      pos = index.next;
      continue;
    }
    if ((first & 0xe0) === 0x20) {
      // Dynamic table size update.
      const size = readInt(block, pos, 5);
      if (!size) return undefined;
      pos = size.next;
      continue;
    }
    const indexed = (first & 0xc0) === 0x40;
    const nameIndex = readInt(block, pos, indexed ? 6 : 4);
    if (!nameIndex) return undefined;
    let next = nameIndex.next;
    let nameLength = 0;
    if (nameIndex.value === 0) {
      const name = readString(block, next);
      if (!name) return undefined;
      nameLength = name.value;
      next = name.next;
    }
    const value = readString(block, next);
    if (!value) return undefined;
    if (nameLength > HPACK_MAX_STRING || value.value > HPACK_MAX_STRING) {
      const size = nameLength + value.value + ENTRY_OVERHEAD;
      found.push({ start: pos, end: value.next, indexed, neverIndexed: !indexed && (first & 0x10) !== 0, size });
    }
    pos = value.next;
  }
  return found.length > 0 ? found : undefined;
}

/**
 * The mark for a field of HPACK size `size`. One sent with incremental indexing emptied the client's dynamic table
 * (it is larger than any table), so its mark is indexed too and larger than any table: Node's table is emptied the
 * same way, and later references to it still mean what the client meant. Otherwise the mark is a short literal
 * that leaves the table alone, never-indexed kept.
 */
function mark(field: Oversized): Buffer {
  const digits = String(field.size);
  if (field.indexed)
    return Buffer.concat([
      Buffer.of(0x40),
      encodeString(OVERSIZED_FIELD_HEADER),
      encodeString(digits.padStart(MAX_TABLE_SIZE, '0')),
    ]);
  return Buffer.concat([
    Buffer.of(field.neverIndexed ? 0x10 : 0x00),
    encodeString(OVERSIZED_FIELD_HEADER),
    encodeString(digits),
  ]);
}

/**
 * `block` (one request's whole header block) with every field longer than nghttp2 takes replaced by an
 * `OVERSIZED_FIELD_HEADER` mark, or undefined when there is none (or the block cannot be read).
 * @example rewriteOversizedFields(block)?.length // a few hundred bytes where 70 KB came
 */
export function rewriteOversizedFields(block: Uint8Array): Buffer | undefined {
  const fields = oversizedFields(block);
  if (!fields) return undefined;
  const parts: Uint8Array[] = [];
  let pos = 0;
  for (const field of fields) {
    parts.push(block.subarray(pos, field.start), mark(field));
    pos = field.end;
  }
  parts.push(block.subarray(pos));
  return Buffer.concat(parts);
}

/**
 * The HPACK size (name + value + 32) of the field a mark stands for, or undefined when `value` is not a mark's
 * (a client's own header of that name, which counts as sent).
 */
export function markedFieldSize(value: string): number | undefined {
  const digits = /^0*(\d{1,16})$/.exec(value)?.[1];
  if (digits === undefined) return undefined;
  const size = Number(digits);
  return size > HPACK_MAX_STRING ? size : undefined;
}
