// Reads the HTTP/2 frames a client sends, ahead of Node's HTTP/2, to hold each header block that could carry a field
// nghttp2 cannot decode and hand it on with such fields replaced (oversizedFields.ts). Every other byte goes on as it
// came, in the pieces it came in.
import { HPACK_MAX_STRING, rewriteOversizedFields } from './oversizedFields.ts';

/** The client connection preface ("PRI * HTTP/2.0..."), passed on unread. */
const PREFACE_BYTES = 24;
const FRAME_HEADER_BYTES = 9;
const HEADERS = 0x1;
const CONTINUATION = 0x9;
const END_STREAM = 0x1;
const END_HEADERS = 0x4;
const PADDED = 0x8;
const PRIORITY = 0x20;
/** The size of the frames a rewritten block is sent in: the least any HTTP/2 endpoint takes. */
const OUT_FRAME_BYTES = 16 * 1024;
/** nghttp2 ends a connection whose header block comes in more frames than this (a HEADERS and 8 CONTINUATIONs). */
const MAX_BLOCK_FRAMES = 9;

/** The frames of a header block held until its last one. */
interface HeldBlock {
  stream: number;
  frames: Buffer[];
  count: number;
  bytes: number;
  /** Whether the frame being read ends the block. */
  lastFrame: boolean;
}

/**
 * One connection's guard: `push` each chunk read from the socket; it returns what to hand Node's HTTP/2 for it
 * (nothing, while a header block is held), and `end` at the connection's end. `maxFrameBytes` is the largest frame the server takes (its
 * SETTINGS_MAX_FRAME_SIZE): a larger one is Node's to refuse, and from it on the guard passes everything unread.
 * @example const guard = new HeaderBlockGuard(256 * 1024); for (const piece of guard.push(chunk)) http2.write(piece)
 */
export class HeaderBlockGuard {
  private prefaceLeft = PREFACE_BYTES;
  private readonly head = Buffer.alloc(FRAME_HEADER_BYTES);
  private headBytes = 0;
  /** Payload bytes of the current frame still to come. */
  private payloadLeft = 0;
  private held: HeldBlock | undefined;
  /** Whether the current frame's payload goes into `held` rather than straight on. */
  private holding = false;
  private unread = false;

  constructor(private readonly maxFrameBytes: number) {}

  push(chunk: Buffer): Buffer[] {
    if (this.unread) return [chunk];
    const out: Buffer[] = [];
    let pos = 0;
    if (this.prefaceLeft > 0) {
      pos = Math.min(this.prefaceLeft, chunk.length);
      out.push(chunk.subarray(0, pos));
      this.prefaceLeft -= pos;
    }
    while (pos < chunk.length) {
      if (this.payloadLeft > 0) {
        const n = Math.min(this.payloadLeft, chunk.length - pos);
        const piece = chunk.subarray(pos, pos + n);
        pos += n;
        this.payloadLeft -= n;
        if (!this.holding) out.push(piece);
        else {
          this.held!.frames.push(piece);
          if (this.payloadLeft === 0) this.frameHeld(out);
        }
        continue;
      }
      const n = Math.min(FRAME_HEADER_BYTES - this.headBytes, chunk.length - pos);
      chunk.copy(this.head, this.headBytes, pos, pos + n);
      this.headBytes += n;
      pos += n;
      if (this.headBytes < FRAME_HEADER_BYTES) break;
      this.headBytes = 0;
      this.frameStarts(Buffer.from(this.head), out);
      if (this.unread) {
        if (pos < chunk.length) out.push(chunk.subarray(pos));
        break;
      }
    }
    return out;
  }

  /** The connection's end: what is held, and a frame header cut short, go on as they came. */
  end(): Buffer[] {
    const out: Buffer[] = [];
    this.release(out);
    if (this.headBytes > 0) out.push(Buffer.from(this.head.subarray(0, this.headBytes)));
    this.headBytes = 0;
    return out;
  }

  /** A frame's header has been read: pass the frame on, or hold it as part of a header block. */
  private frameStarts(header: Buffer, out: Buffer[]): void {
    const length = header.readUIntBE(0, 3);
    const type = header[3]!;
    const flags = header[4]!;
    const stream = header.readUInt32BE(5) & 0x7fffffff;
    const held = this.held;
    if (held && !(type === CONTINUATION && stream === held.stream)) this.release(out);
    if (length > this.maxFrameBytes) {
      this.release(out);
      out.push(header);
      this.unread = true;
      return;
    }
    if (this.held && this.held.count >= MAX_BLOCK_FRAMES) this.release(out);
    // A block in one frame no longer than nghttp2's longest string cannot hold a string longer than that.
    const couldHoldOversized = !(flags & END_HEADERS) || length > HPACK_MAX_STRING;
    if (this.held || (type === HEADERS && couldHoldOversized)) {
      this.held ??= { stream, frames: [], count: 0, bytes: 0, lastFrame: false };
      this.held.frames.push(header);
      this.held.count++;
      this.held.bytes += FRAME_HEADER_BYTES + length;
      this.held.lastFrame = (flags & END_HEADERS) !== 0;
      this.holding = true;
      this.payloadLeft = length;
      if (length === 0) this.frameHeld(out);
      return;
    }
    out.push(header);
    this.payloadLeft = length;
  }

  /** A held frame has been read whole: at the block's last, hand the block on (rewritten when it must be). */
  private frameHeld(out: Buffer[]): void {
    this.holding = false;
    const held = this.held!;
    if (!held.lastFrame) return;
    this.held = undefined;
    const rewritten = rewriteBlock(Buffer.concat(held.frames, held.bytes));
    out.push(...(rewritten ?? held.frames));
  }

  /** Hands on what is held as it came (a block broken off, or too long to hold): Node's HTTP/2 judges it. */
  private release(out: Buffer[]): void {
    if (!this.held) return;
    out.push(...this.held.frames);
    this.held = undefined;
    this.holding = false;
  }
}

/**
 * The frames of a whole header block (a HEADERS frame and its CONTINUATIONs, headers included) with its oversized
 * fields replaced, re-framed without padding; undefined when it has none or its frames cannot be read.
 */
function rewriteBlock(frames: Buffer): Buffer[] | undefined {
  let pos = 0;
  const fragments: Buffer[] = [];
  let first: { stream: number; flags: number; priority: Buffer } | undefined;
  while (pos < frames.length) {
    const length = frames.readUIntBE(pos, 3);
    const flags = frames[pos + 4]!;
    let payload = frames.subarray(pos + FRAME_HEADER_BYTES, pos + FRAME_HEADER_BYTES + length);
    if (!first) {
      let padding = 0;
      if (flags & PADDED) {
        if (payload.length < 1) return undefined;
        padding = payload[0]!;
        payload = payload.subarray(1);
      }
      const priority = flags & PRIORITY ? payload.subarray(0, 5) : Buffer.alloc(0);
      if (priority.length + padding > payload.length) return undefined;
      payload = payload.subarray(priority.length, payload.length - padding);
      first = { stream: frames.readUInt32BE(pos + 5) & 0x7fffffff, flags, priority };
    }
    fragments.push(payload);
    pos += FRAME_HEADER_BYTES + length;
  }
  if (!first) return undefined;
  const block = rewriteOversizedFields(Buffer.concat(fragments));
  if (!block) return undefined;
  const out: Buffer[] = [];
  let at = 0;
  const room = OUT_FRAME_BYTES - first.priority.length;
  do {
    const isFirst = at === 0;
    const piece = block.subarray(at, at + (isFirst ? room : OUT_FRAME_BYTES));
    at += piece.length;
    let flags = isFirst ? first.flags & (END_STREAM | PRIORITY) : 0;
    if (at >= block.length) flags |= END_HEADERS;
    const payload = isFirst ? Buffer.concat([first.priority, piece]) : piece;
    const header = Buffer.alloc(FRAME_HEADER_BYTES);
    header.writeUIntBE(payload.length, 0, 3);
    header[3] = isFirst ? HEADERS : CONTINUATION;
    header[4] = flags;
    header.writeUInt32BE(first.stream, 5);
    out.push(header, payload);
  } while (at < block.length);
  return out;
}
