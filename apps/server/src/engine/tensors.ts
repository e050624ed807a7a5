import type { Tensor, WireTensor } from '@ensemble-studio/core';
import { tensorToJson } from '@ensemble-studio/core';

/** KServe v2 JSON form of a tensor (BigInt → number, BOOL → boolean). */
export function toWire(t: Tensor): WireTensor {
  return { datatype: t.datatype, shape: [...t.shape], data: tensorToJson(t) };
}

/** Shape text for messages, e.g. `[1,3,-1]`. */
export function shapeText(shape: readonly number[]): string {
  return `[${shape.join(',')}]`;
}

/** A tensor's raw little-endian bytes (BYTES: 4-byte length + UTF-8 per element). */
export function tensorToBytes(t: Tensor): Uint8Array {
  if (Array.isArray(t.data)) {
    const parts = t.data.map((s) => Buffer.from(s, 'utf8'));
    const out = Buffer.alloc(parts.reduce((a, p) => a + 4 + p.length, 0));
    let off = 0;
    for (const p of parts) {
      out.writeUInt32LE(p.length, off);
      p.copy(out, off + 4);
      off += 4 + p.length;
    }
    return out;
  }
  const d = t.data as Exclude<Tensor['data'], string[]>;
  return new Uint8Array(d.buffer, d.byteOffset, d.byteLength);
}
