// Reads the HTTP/2 frames a client sends, ahead of Node's HTTP/2, and hands on each header block that could carry a
// field nghttp2 cannot decode with such fields replaced (oversizedFields.ts). Every other frame goes on as it came,
// in the pieces it came in; a single-frame header block too short to hold such a field too.
import { FieldRewriter, HPACK_MAX_STRING } from './oversizedFields.ts';

/** The client connection preface ("PRI * HTTP/2.0..."), passed on unread. */
const PREFACE_BYTES = 24;
const FRAME_HEADER_BYTES = 9;
const HEADERS = 0x1;
const CONTINUATION = 0x9;
const END_STREAM = 0x1;
const END_HEADERS = 0x4;
const PADDED = 0x8;
const PRIORITY = 0x20;
/** The frame size every HTTP/2 endpoint takes: a rewritten block goes in frames this long, or as long as it came. */
const MIN_FRAME_BYTES = 16 * 1024;
/**
 * The most of one header block read (its frames and their number). Header frames are not flow-controlled, and
 * nghttp2's own guard against a CONTINUATION flood (nine frames) sees nothing while the guard reads a long string;
 * past these the block goes on unread, for nghttp2 to end the connection as before (a value of 8 MB is read).
 */
export const MAX_BLOCK_BYTES = 16 * 1024 * 1024;
export const MAX_BLOCK_FRAMES = 1024;

/** A header block being read: its first frame's stream, flags and priority, and the frame being read. */
interface Block {
  stream: number;
  flags: number;
  priority: Buffer;
  fields: FieldRewriter;
  /** The longest frame of the block so far: the rewritten block is sent in frames up to this long. */
  frameBytes: number;
  /** Whether a frame of the rewritten block has been sent (the next is a CONTINUATION). */
  started: boolean;
  /** What has been read of the block: bytes (frame headers included) and frames. */
  bytesRead: number;
  framesRead: number;
  /** The current frame: bytes before its fragment still to read (pad length, priority), its fragment, padding. */
  front: Buffer[];
  frontLeft: number;
  fragmentLeft: number;
  last: boolean;
}

/**
 * One connection's guard: `push` each chunk read from the socket; it returns what to hand Node's HTTP/2 for it,
 * and `end` what is left at the connection's end. `maxFrameBytes` is the largest frame the server takes (its
 * SETTINGS_MAX_FRAME_SIZE): a larger one is Node's to refuse, and from it on the guard passes everything unread; so
 * does a header block past `MAX_BLOCK_BYTES` or `MAX_BLOCK_FRAMES`.
 * @example const guard = new HeaderBlockGuard(256 * 1024); for (const piece of guard.push(chunk)) http2.write(piece)
 */
export class HeaderBlockGuard {
  private prefaceLeft = PREFACE_BYTES;
  private readonly head = Buffer.alloc(FRAME_HEADER_BYTES);
  private headBytes = 0;
  /** Payload bytes of the current frame still to come. */
  private payloadLeft = 0;
  private block: Block | undefined;
  /** Whether the current frame's payload goes to `block` rather than straight on. */
  private inBlock = false;
  private unread = false;

  constructor(private readonly maxFrameBytes: number) {}

  push(chunk: Buffer): Buffer[] {
    if (this.unread) return [chunk];
    const out: Buffer[] = [];
    let pos = Math.min(this.prefaceLeft, chunk.length);
    this.prefaceLeft -= pos;
    // The chunk's bytes from `from` on go on as one piece, up to where a held block's frame begins.
    let from = 0;
    while (pos < chunk.length && !this.unread) {
      if (this.payloadLeft > 0) {
        const n = Math.min(this.payloadLeft, chunk.length - pos);
        const held = this.inBlock;
        if (held) this.blockPayload(chunk.subarray(pos, pos + n), out);
        pos += n;
        this.payloadLeft -= n;
        if (held) from = pos;
        if (this.inBlock && this.payloadLeft === 0) this.blockFrameEnds(out);
        continue;
      }
      // Where this frame's header begins (before the chunk when it began in the one before).
      const start = pos - this.headBytes;
      const n = Math.min(FRAME_HEADER_BYTES - this.headBytes, chunk.length - pos);
      chunk.copy(this.head, this.headBytes, pos, pos + n);
      this.headBytes += n;
      pos += n;
      if (this.headBytes < FRAME_HEADER_BYTES) {
        // A header cut short waits in `head` until its frame is known.
        if (start > from) out.push(chunk.subarray(from, start));
        return out;
      }
      this.headBytes = 0;
      from = this.frameStarts(chunk, start, pos, from, out);
    }
    if (from < chunk.length) out.push(chunk.subarray(from));
    return out;
  }

  /** The connection's end: a block cut short goes on as far as it came, a frame header cut short as it came. */
  end(): Buffer[] {
    const out: Buffer[] = [];
    this.breakBlock(out);
    if (this.headBytes > 0) out.push(Buffer.from(this.head.subarray(0, this.headBytes)));
    this.headBytes = 0;
    return out;
  }

  /**
   * A frame's header has been read (`head`; it began at `start` of `chunk`, before it when it began in an earlier
   * chunk, and ends at `end`): pass the frame on, or read it as part of a header block. Returns where the bytes still
   * to go on as they came begin.
   */
  private frameStarts(chunk: Buffer, start: number, end: number, from: number, out: Buffer[]): number {
    const head = this.head;
    const length = head.readUIntBE(0, 3);
    const type = head[3]!;
    const flags = head[4]!;
    const stream = head.readUInt32BE(5) & 0x7fffffff;
    if (this.block && !(type === CONTINUATION && stream === this.block.stream)) this.breakBlock(out);
    // A header that began in an earlier chunk is not in this chunk's bytes: it goes on by itself.
    const passed = () => {
      if (start >= 0) return from;
      out.push(Buffer.from(head));
      return end;
    };
    const flood =
      this.block &&
      (this.block.framesRead >= MAX_BLOCK_FRAMES ||
        this.block.bytesRead + FRAME_HEADER_BYTES + length > MAX_BLOCK_BYTES);
    if (length > this.maxFrameBytes || flood) {
      this.breakBlock(out);
      this.unread = true;
      return passed();
    }
    this.payloadLeft = length;
    // A block in one frame no longer than nghttp2's longest string cannot hold a string longer than that.
    const mayHoldLongField = !(flags & END_HEADERS) || length > HPACK_MAX_STRING;
    if (!this.block && !(type === HEADERS && mayHoldLongField)) {
      this.inBlock = false;
      return passed();
    }
    // What came before this frame goes on first; the frame itself is read.
    if (start > from) out.push(chunk.subarray(from, start));
    const frontLeft = type === HEADERS ? (flags & PADDED ? 1 : 0) + (flags & PRIORITY ? 5 : 0) : 0;
    this.block ??= {
      stream,
      flags,
      priority: Buffer.alloc(0),
      fields: new FieldRewriter(),
      frameBytes: MIN_FRAME_BYTES,
      started: false,
      bytesRead: 0,
      framesRead: 0,
      front: [],
      frontLeft: 0,
      fragmentLeft: 0,
      last: false,
    };
    const block = this.block;
    block.frameBytes = Math.max(block.frameBytes, length);
    block.bytesRead += FRAME_HEADER_BYTES + length;
    block.framesRead++;
    block.front = [];
    block.frontLeft = frontLeft;
    block.fragmentLeft = Math.max(0, length - frontLeft);
    block.last = (flags & END_HEADERS) !== 0;
    this.inBlock = true;
    if (length === 0) this.blockFrameEnds(out);
    return end;
  }

  /** Bytes of a block's frame: its front (pad length, priority), its fragment to the rewriter, padding dropped. */
  private blockPayload(piece: Buffer, out: Buffer[]): void {
    const block = this.block!;
    if (block.frontLeft > 0) {
      const n = Math.min(block.frontLeft, piece.length);
      block.front.push(piece.subarray(0, n));
      block.frontLeft -= n;
      piece = piece.subarray(n);
      if (block.frontLeft === 0) {
        const front = Buffer.concat(block.front);
        const padding = block.flags & PADDED ? front[0]! : 0;
        if (block.flags & PRIORITY) block.priority = front.subarray(front.length - 5);
        if (padding > block.fragmentLeft) return this.failBlock(out);
        block.fragmentLeft -= padding;
      }
    }
    const fragment = piece.subarray(0, block.fragmentLeft);
    block.fragmentLeft -= fragment.length;
    if (fragment.length > 0) block.fields.write(fragment);
  }

  /** A block's frame has been read: send what is ready of the rewritten block, all of it at the block's end. */
  private blockFrameEnds(out: Buffer[]): void {
    this.inBlock = false;
    const block = this.block!;
    if (block.frontLeft > 0) return this.failBlock(out);
    if (block.last) {
      this.sendBlock(out, true);
      this.block = undefined;
    } else if (block.fields.pending >= block.frameBytes) this.sendBlock(out, false);
  }

  /**
   * A HEADERS frame Node's HTTP/2 refuses (its padding or priority runs past its end): Node gets one it refuses the
   * same way (a pad length past the frame: PROTOCOL_ERROR), and the rest of the connection goes on unread.
   */
  private failBlock(out: Buffer[]): void {
    const header = Buffer.alloc(FRAME_HEADER_BYTES);
    header.writeUIntBE(1, 0, 3);
    header[3] = HEADERS;
    header[4] = PADDED;
    header.writeUInt32BE(this.block!.stream, 5);
    out.push(header, Buffer.of(1));
    this.block = undefined;
    this.inBlock = false;
    this.unread = true;
  }

  /** A block broken off by another frame or the connection's end: what was read of it goes on, unended. */
  private breakBlock(out: Buffer[]): void {
    if (!this.block) return;
    this.sendBlock(out, false, true);
    this.block = undefined;
    this.inBlock = false;
  }

  /** Sends the rewritten block so far in frames; `end` ends it (END_HEADERS); `all` sends what a frame cannot fill. */
  private sendBlock(out: Buffer[], end: boolean, all = end): void {
    const block = this.block!;
    const bytes = Buffer.concat(block.fields.take(all));
    let at = 0;
    do {
      const room = block.frameBytes - (block.started ? 0 : block.priority.length);
      const rest = bytes.length - at;
      if (rest < room && !all) break;
      const piece = bytes.subarray(at, at + room);
      at += piece.length;
      const first = !block.started;
      let flags = first ? block.flags & (END_STREAM | PRIORITY) : 0;
      if (end && at >= bytes.length) flags |= END_HEADERS;
      const payload = first ? Buffer.concat([block.priority, piece]) : piece;
      const header = Buffer.alloc(FRAME_HEADER_BYTES);
      header.writeUIntBE(payload.length, 0, 3);
      header[3] = first ? HEADERS : CONTINUATION;
      header[4] = flags;
      header.writeUInt32BE(block.stream, 5);
      out.push(header, payload);
      block.started = true;
    } while (at < bytes.length);
    // What did not fill a frame waits for the block's next bytes.
    if (at < bytes.length) block.fields.unshift(bytes.subarray(at));
  }
}
