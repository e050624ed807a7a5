import type { DataType, Tensor } from '@ensemble-studio/core';
import { allocData, dtypeSize, elementCount, isDataType } from '@ensemble-studio/core';

// Frames between the engine and a python3 stub (PROTOCOL.md): u32le header length, u32le blob length,
// a JSON header, then the tensors' bytes (each at an offset that is a multiple of 8).

/** A tensor as a frame's header names it; its bytes are `blob[offset, offset + nbytes)`. */
export interface FrameTensor { name: string; datatype: DataType; shape: number[]; offset: number; nbytes: number }

/** A decoded frame: its header and the blob its tensors point into. */
export interface Frame { header: Record<string, unknown>; blob: Uint8Array }

const align8 = (n: number): number => (n + 7) & ~7;

/** A tensor's raw little-endian bytes (BYTES: per element a u32le length, then its UTF-8 bytes). */
function tensorBytes(t: Tensor): Uint8Array {
  if (Array.isArray(t.data)) {
    const parts = t.data.map((s) => Buffer.from(s, 'utf8'));
    const out = Buffer.allocUnsafe(parts.reduce((a, p) => a + 4 + p.length, 0));
    let off = 0;
    for (const p of parts) { out.writeUInt32LE(p.length, off); p.copy(out, off + 4); off += 4 + p.length; }
    return out;
  }
  const d = t.data as Exclude<Tensor['data'], string[]>;
  return new Uint8Array(d.buffer, d.byteOffset, d.byteLength);
}

/**
 * Builds one frame: describe tensors with `tensors()` (placing the descriptions anywhere in the header),
 * then `finish(header)` gives the buffers to write.
 * @example const w = new FrameWriter(); w.finish({ type: 'execute', requests: [{ inputs: w.tensors(Object.entries(feeds)) }] })
 */
export class FrameWriter {
  private parts: Uint8Array[] = [];
  private size = 0;

  /** Adds tensors to the blob; returns their descriptions for the header. */
  tensors(list: [string, Tensor][]): FrameTensor[] {
    return list.map(([name, t]) => {
      const bytes = tensorBytes(t);
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
 * Splits a byte stream into frames: feed it chunks as they arrive, get whole frames back.
 * A frame announcing more than `maxBytes` is refused (a broken or hostile peer).
 */
export class FrameReader {
  private chunks: Buffer[] = [];
  private have = 0;

  constructor(private readonly maxBytes = 2 ** 31) {}

  /** Adds a chunk; returns the frames it completed. */
  push(chunk: Buffer): Frame[] {
    this.chunks.push(chunk);
    this.have += chunk.byteLength;
    const frames: Frame[] = [];
    for (;;) {
      if (this.have < 8) break;
      const first = this.peek(8);
      const headLen = first.readUInt32LE(0);
      const blobLen = first.readUInt32LE(4);
      const total = 8 + headLen + blobLen;
      if (total > this.maxBytes) throw new Error(`the python process sent a frame of ${total} bytes, over the limit of ${this.maxBytes}`);
      if (this.have < total) break;
      const all = this.take(total);
      const header = JSON.parse(all.toString('utf8', 8, 8 + headLen)) as Record<string, unknown>;
      frames.push({ header, blob: all.subarray(8 + headLen) });
    }
    return frames;
  }

  private peek(n: number): Buffer {
    if (this.chunks[0]!.byteLength >= n) return this.chunks[0]!;
    const joined = Buffer.concat(this.chunks);
    this.chunks = [joined];
    return joined;
  }

  private take(n: number): Buffer {
    const joined = this.chunks.length === 1 ? this.chunks[0]! : Buffer.concat(this.chunks);
    const rest = joined.subarray(n);
    this.chunks = rest.byteLength > 0 ? [rest] : [];
    this.have -= n;
    // The frame gets its own copy when it is a small part of a big chunk, so the chunk can be freed.
    return rest.byteLength > n ? Buffer.from(joined.subarray(0, n)) : joined.subarray(0, n);
  }
}

/**
 * The tensors a frame's header lists under `key`, decoded from its blob (numeric data copied into
 * typed arrays of their own, so nothing keeps the frame alive).
 */
export function frameTensors(frame: Frame, key: string, list: unknown = frame.header[key]): Record<string, Tensor> {
  if (list === null || list === undefined) return {};
  if (!Array.isArray(list)) throw new Error(`frame field '${key}' is not a list of tensors`);
  const out: Record<string, Tensor> = {};
  for (const raw of list as FrameTensor[]) {
    if (!isDataType(raw.datatype)) throw new Error(`tensor '${raw.name}' has unknown datatype ${String(raw.datatype)}`);
    if (raw.offset + raw.nbytes > frame.blob.byteLength) throw new Error(`tensor '${raw.name}' runs past the end of its frame`);
    out[raw.name] = decodeTensor(raw, frame.blob.subarray(raw.offset, raw.offset + raw.nbytes));
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
    if (data.length !== n) throw new Error(`tensor '${name}' has ${data.length} BYTES elements but shape [${shape.join(',')}] needs ${n}`);
    return { datatype, shape, data };
  }
  if (bytes.byteLength !== n * dtypeSize(datatype)) throw new Error(`tensor '${name}' has ${bytes.byteLength} bytes but shape [${shape.join(',')}] of ${datatype} needs ${n * dtypeSize(datatype)}`);
  const data = allocData(datatype, n) as Exclude<Tensor['data'], string[]>;
  new Uint8Array(data.buffer, data.byteOffset, data.byteLength).set(bytes);
  return { datatype, shape, data };
}
