import type { DataType, Tensor } from '@ensemble-studio/core';
import { allocData, dtypeSize, elementCount, isDataType } from '@ensemble-studio/core';
import { tensorToBytes } from '../../tensors.ts';

// Frames between the engine and a python3 stub (PROTOCOL.md): u32le header length, u32le blob length,
// a JSON header, then the tensors' bytes (each at an offset that is a multiple of 8).

/**
 * A tensor as a frame's header names it: its bytes are `blob[offset, offset + nbytes)`, or, with `region`, at that
 * offset of the sender's region file (sharedRegion.ts).
 */
export interface FrameTensor {
  name: string;
  datatype: DataType;
  shape: number[];
  offset?: number;
  region?: number;
  nbytes: number;
}

/** A decoded frame: its header, the blob its tensors point into, and the bytes of those read from a region. */
export interface Frame {
  header: Record<string, unknown>;
  blob: Uint8Array;
  fromRegion?: Map<FrameTensor, Uint8Array>;
}

const align8 = (n: number): number => (n + 7) & ~7;

/** A frame the reader refused from its header (its message says what the peer sent, starting with "sent"). */
export class FrameRefused extends Error {}

/**
 * Builds one frame: describe tensors with `tensors()` (placing the descriptions anywhere in the header),
 * then `finish(header)` gives the buffers to write.
 * @example const w = new FrameWriter(); w.finish({ type: 'execute', requests: [{ inputs: w.tensors(Object.entries(feeds)) }] })
 */
export class FrameWriter {
  private parts: Uint8Array[] = [];
  private size = 0;
  /** Region offsets of the tensors `place` took. */
  readonly placed: number[] = [];

  /** `place` may take a tensor's bytes elsewhere (a region file), returning where, or leave it to the blob. */
  constructor(private readonly place?: (bytes: Uint8Array) => number | undefined) {}

  /** Adds tensors to the blob (or the region); returns their descriptions for the header. */
  tensors(list: [string, Tensor][]): FrameTensor[] {
    return list.map(([name, t]) => {
      const bytes = tensorToBytes(t);
      const region = this.place?.(bytes);
      if (region !== undefined) {
        this.placed.push(region);
        return { name, datatype: t.datatype, shape: [...t.shape], region, nbytes: bytes.byteLength };
      }
      const offset = this.size;
      this.parts.push(bytes);
      this.size = align8(offset + bytes.byteLength);
      const pad = this.size - offset - bytes.byteLength;
      if (pad > 0) this.parts.push(new Uint8Array(pad));
      return { name, datatype: t.datatype, shape: [...t.shape], offset, nbytes: bytes.byteLength };
    });
  }

  /** The frame's buffers, in order. */
  finish(header: Record<string, unknown>): Buffer[] {
    const json = Buffer.from(JSON.stringify(header), 'utf8');
    const head = Buffer.allocUnsafe(8);
    head.writeUInt32LE(json.byteLength, 0);
    head.writeUInt32LE(this.size, 4);
    return [head, json, ...this.parts.map((p) => Buffer.from(p.buffer, p.byteOffset, p.byteLength))];
  }
}

/**
 * Splits a byte stream into frames: feed it chunks as they arrive, get whole frames back. Each header is read
 * and passed to `check` as soon as it is in, before its blob is waited for: `check` (and a header over
 * `maxHeaderBytes`) refuses a frame by throwing, so a refused blob is never gathered.
 */
export class FrameReader {
  private chunks: Buffer[] = [];
  /** Bytes of `chunks[0]` already taken. */
  private start = 0;
  /** Bytes buffered and not yet taken. */
  private have = 0;
  /** The frame whose header has been read and checked, while its blob's bytes arrive (`filled` so far). */
  private next: { header: Record<string, unknown>; blob: Buffer; filled: number } | undefined;

  constructor(
    private readonly check: (header: Record<string, unknown>, blobBytes: number) => void = () => {},
    private readonly maxHeaderBytes = 2 ** 31,
  ) {}

  /** Adds a chunk; returns the frames it completed. */
  push(chunk: Buffer): Frame[] {
    this.chunks.push(chunk);
    this.have += chunk.byteLength;
    const frames: Frame[] = [];
    for (;;) {
      if (!this.next && !this.readHeader()) break;
      const f = this.next!;
      this.fill(f);
      if (f.filled < f.blob.byteLength) break;
      this.next = undefined;
      frames.push({ header: f.header, blob: f.blob });
    }
    return frames;
  }

  /** Reads and checks the next frame's header once it is all in, and makes its blob's buffer; false while it is not in. */
  private readHeader(): boolean {
    if (this.have < 8) return false;
    let buf = this.peek(8);
    const headLen = buf.readUInt32LE(this.start);
    const blobLen = buf.readUInt32LE(this.start + 4);
    if (headLen > this.maxHeaderBytes)
      throw new FrameRefused(`sent a frame header of ${headLen} bytes, over the limit of ${this.maxHeaderBytes}`);
    if (this.have < 8 + headLen) return false;
    buf = this.peek(8 + headLen);
    let header: Record<string, unknown>;
    try {
      header = JSON.parse(buf.toString('utf8', this.start + 8, this.start + 8 + headLen)) as Record<string, unknown>;
    } catch (err) {
      throw new FrameRefused(`sent a frame header that is not JSON (${(err as Error).message})`);
    }
    this.check(header, blobLen);
    this.take(8 + headLen);
    // The blob gets a buffer of its own, starting at a multiple of 8, so its tensors can be views (no second copy: a
    // 4.9 MB tensor copied again costs ~1200 fresh pages here). It is made now and filled as the chunks come: its
    // fresh pages are touched a read at a time, not all in one turn once the frame is whole (a 16 MB output's 3,900
    // page faults held the event loop ~60 ms). Only the blob is copied: the header is read where it lies.
    this.next = { header, blob: Buffer.allocUnsafeSlow(blobLen), filled: 0 };
    return true;
  }

  /** The buffer holding the first `n` buffered bytes from `this.start` (joining only the chunks they span). */
  private peek(n: number): Buffer {
    const first = this.chunks[0]!;
    if (first.byteLength - this.start >= n) return first;
    let k = 1;
    for (let got = first.byteLength - this.start; got < n; k++) got += this.chunks[k]!.byteLength;
    const joined = Buffer.concat([first.subarray(this.start), ...this.chunks.slice(1, k)]);
    this.chunks.splice(0, k, joined);
    this.start = 0;
    return joined;
  }

  /** Drops the first `n` buffered bytes. */
  private take(n: number): void {
    this.have -= n;
    this.start += n;
    while (this.chunks.length > 0 && this.start >= this.chunks[0]!.byteLength) {
      this.start -= this.chunks[0]!.byteLength;
      this.chunks.shift();
    }
  }

  /** Moves what is buffered of frame `f`'s blob (up to its end) into its buffer. */
  private fill(f: NonNullable<FrameReader['next']>): void {
    while (f.filled < f.blob.byteLength && this.chunks.length > 0) {
      const c = this.chunks[0]!;
      const k = Math.min(c.byteLength - this.start, f.blob.byteLength - f.filled);
      c.copy(f.blob, f.filled, this.start, this.start + k);
      f.filled += k;
      this.take(k);
    }
  }
}

/**
 * The tensors a frame's header lists under `key`, decoded from its blob: numeric data are views into the
 * frame's own buffer (FrameReader aligns it), BYTES are decoded to strings.
 */
export function frameTensors(frame: Frame, key: string, list: unknown = frame.header[key]): Record<string, Tensor> {
  if (list === null || list === undefined) return {};
  if (!Array.isArray(list)) throw new Error(`frame field '${key}' is not a list of tensors`);
  const out: Record<string, Tensor> = {};
  for (const raw of list as FrameTensor[]) {
    if (!isDataType(raw.datatype)) throw new Error(`tensor '${raw.name}' has unknown datatype ${String(raw.datatype)}`);
    const fromRegion = frame.fromRegion?.get(raw);
    let bytes = fromRegion;
    if (!bytes) {
      const offset = Number(raw.offset);
      if (!(offset >= 0 && offset + raw.nbytes <= frame.blob.byteLength))
        throw new Error(`tensor '${raw.name}' runs past the end of its frame`);
      bytes = frame.blob.subarray(offset, offset + raw.nbytes);
    }
    // An own property even for a name like "__proto__", which an assignment would take as the object's prototype
    // (the tensor vanished, and its fields were inherited as tensors of other names).
    Object.defineProperty(out, raw.name, {
      value: decodeTensor(raw, bytes),
      enumerable: true,
      writable: true,
      configurable: true,
    });
  }
  return out;
}

function decodeTensor(raw: FrameTensor, bytes: Uint8Array): Tensor {
  const { name, datatype, shape } = raw;
  const n = elementCount(shape);
  if (datatype === 'BYTES') {
    const data: string[] = [];
    const buf = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    let off = 0;
    while (off + 4 <= buf.byteLength) {
      const len = buf.readUInt32LE(off);
      data.push(buf.toString('utf8', off + 4, off + 4 + len));
      off += 4 + len;
    }
    if (data.length !== n)
      throw new Error(`tensor '${name}' has ${data.length} BYTES elements but shape [${shape.join(',')}] needs ${n}`);
    return { datatype, shape, data };
  }
  if (bytes.byteLength !== n * dtypeSize(datatype))
    throw new Error(
      `tensor '${name}' has ${bytes.byteLength} bytes but shape [${shape.join(',')}] of ${datatype} needs ${n * dtypeSize(datatype)}`,
    );
  const size = dtypeSize(datatype);
  if (bytes.byteOffset % size === 0)
    return { datatype, shape, data: viewOf(datatype, bytes.buffer, bytes.byteOffset, n) };
  const data = allocData(datatype, n) as Exclude<Tensor['data'], string[]>;
  new Uint8Array(data.buffer, data.byteOffset, data.byteLength).set(bytes);
  return { datatype, shape, data };
}

function viewOf(
  datatype: Exclude<DataType, 'BYTES'>,
  buffer: ArrayBufferLike,
  offset: number,
  n: number,
): Exclude<Tensor['data'], string[]> {
  switch (datatype) {
    case 'BOOL':
    case 'UINT8':
      return new Uint8Array(buffer, offset, n);
    case 'INT8':
      return new Int8Array(buffer, offset, n);
    case 'INT16':
      return new Int16Array(buffer, offset, n);
    case 'UINT16':
    case 'FP16':
    case 'BF16':
      return new Uint16Array(buffer, offset, n);
    case 'INT32':
      return new Int32Array(buffer, offset, n);
    case 'UINT32':
      return new Uint32Array(buffer, offset, n);
    case 'INT64':
      return new BigInt64Array(buffer, offset, n);
    case 'UINT64':
      return new BigUint64Array(buffer, offset, n);
    case 'FP32':
      return new Float32Array(buffer, offset, n);
    case 'FP64':
      return new Float64Array(buffer, offset, n);
  }
}
