// HPACK (RFC 7541) read just far enough to find the header fields Node's HTTP/2 cannot decode, and to put a short
// mark in their place. nghttp2 (inside Node, fixed at build: NGHTTP2_HD_MAX_NV) ends a whole connection with GOAWAY
// COMPRESSION_ERROR on a name or value longer than 64 KiB as sent, before any callback of Node's runs; gRPC C-core
// clients retry such a request as never processed until their deadline, or without end. Triton (C-core's HPACK
// parser) reads past the field and refuses the one request, RESOURCE_EXHAUSTED, over its hard metadata limit. With
// the field replaced by a mark, Node decodes the block and `refuseLargeMetadata` gives Triton's answer.
import { randomBytes } from 'node:crypto';

/** The longest string (a name or a value, as sent: Huffman-coded or not) nghttp2's HPACK decoder takes. */
export const HPACK_MAX_STRING = 65536;
/**
 * The header a replaced field becomes; its value is the field's HPACK size (name + value + 32), in digits. Its name
 * ends in this process's own random part, so a client's header can never pass for one.
 */
export const OVERSIZED_FIELD_HEADER = `x-studio-oversized-${randomBytes(8).toString('hex')}`;
/**
 * The largest dynamic table a client may keep with Node's HTTP/2 (its SETTINGS_HEADER_TABLE_SIZE, 4,096, is the
 * most a client's table size update may ask for). An entry larger than the table empties it (RFC 7541 §4.4).
 */
const MAX_TABLE_SIZE = 4096;
/** HPACK's per-entry overhead. */
const ENTRY_OVERHEAD = 32;

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

/**
 * The mark for a field of HPACK size `size`. One sent with incremental indexing emptied the client's dynamic table
 * (it is larger than any table), so its mark is indexed too and larger than any table: Node's table is emptied the
 * same way, and later references to it still mean what the client meant. Otherwise the mark is a short literal
 * that leaves the table alone, never-indexed kept.
 */
function mark(field: { indexed: boolean; neverIndexed: boolean; size: number }): Buffer {
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

const EMPTY = Buffer.alloc(0);
type Phase = 'first' | 'intStart' | 'int' | 'string' | 'unread';
/** What the integer being read is: all of an indexed field or a table size update, a name's index, a length. */
type IntKind = 'whole' | 'nameIndex' | 'nameLength' | 'valueLength';

/**
 * Reads a header block as it comes, in pieces (`write`), and gives it back (`take`) with every field longer than
 * nghttp2 takes replaced by an `OVERSIZED_FIELD_HEADER` mark: the other fields' bytes as they came, a long
 * string's bytes never kept (a block of any length is read in the memory of its longest ordinary field). Where the
 * block cannot be read as HPACK, the rest goes on as it came, for Node's HTTP/2 to refuse.
 * @example const r = new FieldRewriter(); r.write(fragment); send(r.take())
 */
export class FieldRewriter {
  private out: Buffer[] = [];
  private outBytes = 0;
  /** The current field's bytes so far (all but a long string's). */
  private field: Buffer[] = [];
  /** The fragment being written, where in it the reading is, the first byte not yet out, the current field's start. */
  private fragment: Buffer = EMPTY;
  private pos = 0;
  private emitFrom = 0;
  private fieldStart = 0;
  private phase: Phase = 'first';
  private int = 0;
  private shift = 0;
  private intKind: IntKind = 'whole';
  private stringLeft = 0;
  private stringIsName = false;
  private indexed = false;
  private neverIndexed = false;
  private nameLength = 0;
  private tooLong = false;

  /** Bytes rewritten and not yet taken. */
  get pending(): number {
    return this.outBytes;
  }

  write(fragment: Buffer): void {
    this.fragment = fragment;
    this.pos = 0;
    // A field begun in an earlier fragment has its bytes so far in `field`; none of this fragment is out yet.
    this.emitFrom = 0;
    this.fieldStart = 0;
    while (this.pos < fragment.length && this.phase !== 'unread') {
      if (this.phase === 'string') {
        const n = Math.min(this.stringLeft, fragment.length - this.pos);
        this.pos += n;
        this.stringLeft -= n;
        if (this.stringLeft === 0) this.stringDone();
        continue;
      }
      const byte = fragment[this.pos++]!;
      if (this.phase === 'first') {
        this.fieldStart = this.pos - 1;
        this.firstByte(byte);
      } else if (this.phase === 'intStart') this.startInt(byte, 7, this.intKind);
      else this.intByte(byte);
    }
    // Completed fields go out as one piece of the fragment; a field cut short waits in `field` (unless dropped).
    if (this.phase === 'first' || this.phase === 'unread') this.emit(fragment.subarray(this.emitFrom));
    else {
      this.emit(fragment.subarray(this.emitFrom, this.fieldStart));
      if (!this.tooLong) this.field.push(fragment.subarray(this.fieldStart));
    }
    this.fragment = EMPTY;
  }

  /** The block rewritten so far; `all` at the block's end (a field cut short goes on as it came, to be refused). */
  take(all = false): Buffer[] {
    if (all && !this.tooLong) this.emit(...this.field);
    if (all) this.field = [];
    const out = this.out;
    this.out = [];
    this.outBytes = 0;
    return out;
  }

  /** Puts back, in front of what is pending, bytes taken that did not fill a frame. */
  unshift(piece: Buffer): void {
    this.out.unshift(piece);
    this.outBytes += piece.length;
  }

  private firstByte(byte: number): void {
    if (byte & 0x80) return this.startInt(byte, 7, 'whole');
    if ((byte & 0xe0) === 0x20) return this.startInt(byte, 5, 'whole');
    this.indexed = (byte & 0xc0) === 0x40;
    this.neverIndexed = !this.indexed && (byte & 0x10) !== 0;
    this.nameLength = 0;
    this.startInt(byte, this.indexed ? 6 : 4, 'nameIndex');
  }

  private startInt(byte: number, prefixBits: number, kind: IntKind): void {
    const max = (1 << prefixBits) - 1;
    this.int = byte & max;
    this.shift = 0;
    this.intKind = kind;
    if (this.int < max) this.intDone();
    else this.phase = 'int';
  }

  private intByte(byte: number): void {
    // Lengths and indexes up to 2^35: longer than any block, and exact in a double.
    if (this.shift > 28) return this.unreadable();
    this.int += (byte & 0x7f) * 2 ** this.shift;
    this.shift += 7;
    if (!(byte & 0x80)) this.intDone();
  }

  private intDone(): void {
    switch (this.intKind) {
      case 'whole':
        return this.fieldDone();
      case 'nameIndex':
        this.intKind = this.int === 0 ? 'nameLength' : 'valueLength';
        this.phase = 'intStart';
        return;
      default: {
        this.stringIsName = this.intKind === 'nameLength';
        if (this.stringIsName) this.nameLength = this.int;
        if (this.int > HPACK_MAX_STRING && !this.tooLong) this.dropField();
        this.stringLeft = this.int;
        this.phase = 'string';
        if (this.int === 0) this.stringDone();
      }
    }
  }

  private stringDone(): void {
    if (this.stringIsName) {
      this.intKind = 'valueLength';
      this.phase = 'intStart';
      return;
    }
    if (this.tooLong) {
      const size = this.nameLength + this.int + ENTRY_OVERHEAD;
      this.emit(mark({ indexed: this.indexed, neverIndexed: this.neverIndexed, size }));
    }
    this.fieldDone();
  }

  private fieldDone(): void {
    if (this.tooLong) {
      this.emitFrom = this.pos;
      this.tooLong = false;
    } else this.emit(...this.field);
    this.field = [];
    this.phase = 'first';
  }

  /** The field's string is longer than nghttp2 takes: what came of the field so far is dropped. */
  private dropField(): void {
    this.emit(this.fragment.subarray(this.emitFrom, this.fieldStart));
    this.emitFrom = this.fieldStart;
    this.field = [];
    this.tooLong = true;
  }

  private unreadable(): void {
    this.emit(this.fragment.subarray(this.emitFrom, this.fieldStart), ...this.field);
    this.emitFrom = this.fieldStart;
    this.field = [];
    this.phase = 'unread';
  }

  private emit(...pieces: Buffer[]): void {
    for (const piece of pieces) {
      this.out.push(piece);
      this.outBytes += piece.length;
    }
  }
}

/** The HPACK size (name + value + 32) of the field a mark stands for, or undefined when `value` is not a mark's. */
export function markedFieldSize(value: string): number | undefined {
  const digits = /^0*(\d{1,16})$/.exec(value)?.[1];
  if (digits === undefined) return undefined;
  const size = Number(digits);
  return size > HPACK_MAX_STRING ? size : undefined;
}
