/**
 * Just enough of the protobuf wire format to edit an ONNX file without a protobuf library:
 * split a message into its fields, and write fields back. Unknown fields are copied byte for byte.
 */
export interface WireField {
  field: number;
  wireType: number;
  /** Raw bytes of the whole field (key + value). */ raw: Uint8Array;
  /** For length-delimited fields: the payload. */ payload?: Uint8Array;
}

function readVarint(buf: Uint8Array, pos: number): [bigint, number] {
  let result = 0n;
  let shift = 0n;
  for (;;) {
    if (pos >= buf.length) throw new Error('truncated varint');
    const b = buf[pos++]!;
    result |= BigInt(b & 0x7f) << shift;
    if ((b & 0x80) === 0) return [result, pos];
    shift += 7n;
  }
}

/** Splits a serialized message into its top-level fields, in order. */
export function readFields(buf: Uint8Array): WireField[] {
  const fields: WireField[] = [];
  let pos = 0;
  while (pos < buf.length) {
    const start = pos;
    const [key, afterKey] = readVarint(buf, pos);
    pos = afterKey;
    const field = Number(key >> 3n);
    const wireType = Number(key & 7n);
    let payload: Uint8Array | undefined;
    if (wireType === 0) pos = readVarint(buf, pos)[1];
    else if (wireType === 1) pos += 8;
    else if (wireType === 5) pos += 4;
    else if (wireType === 2) {
      const [len, afterLen] = readVarint(buf, pos);
      payload = buf.subarray(afterLen, afterLen + Number(len));
      pos = afterLen + Number(len);
    } else throw new Error(`unsupported wire type ${wireType} at byte ${start}`);
    if (pos > buf.length) throw new Error(`field ${field} runs past the end of the message`);
    fields.push({ field, wireType, raw: buf.subarray(start, pos), payload });
  }
  return fields;
}

export function varint(value: bigint | number): Uint8Array {
  let v = BigInt.asUintN(64, BigInt(value));
  const out: number[] = [];
  do {
    let b = Number(v & 0x7fn);
    v >>= 7n;
    if (v > 0n) b |= 0x80;
    out.push(b);
  } while (v > 0n);
  return Uint8Array.from(out);
}

export function concat(parts: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let pos = 0;
  for (const p of parts) {
    out.set(p, pos);
    pos += p.length;
  }
  return out;
}

/** A length-delimited field (strings, bytes, sub-messages, packed repeated). */
export function lengthField(field: number, payload: Uint8Array): Uint8Array {
  return concat([varint((field << 3) | 2), varint(payload.length), payload]);
}

export function varintField(field: number, value: bigint | number): Uint8Array {
  return concat([varint(field << 3), varint(value)]);
}

export function stringField(field: number, s: string): Uint8Array {
  return lengthField(field, new TextEncoder().encode(s));
}
