/**
 * A minimal protobuf wire-format writer: varints, length-delimited fields, fixed32 floats and packed
 * repeated fields. Enough to emit ONNX ModelProto files (onnx.proto3) without a protobuf library.
 */

const WIRE_VARINT = 0;
const WIRE_LEN = 2;
const WIRE_FIXED32 = 5;

/** Appends protobuf fields to a growable byte buffer. */
export class ProtoWriter {
  private buf = new Uint8Array(256);
  private len = 0;

  /** The bytes written so far (a copy sized exactly). */
  finish(): Uint8Array {
    return this.buf.slice(0, this.len);
  }

  private ensure(n: number): void {
    if (this.len + n <= this.buf.length) return;
    let size = this.buf.length * 2;
    while (size < this.len + n) size *= 2;
    const next = new Uint8Array(size);
    next.set(this.buf.subarray(0, this.len));
    this.buf = next;
  }

  private rawVarint(value: bigint): void {
    // Negative int64 values are encoded as their 64-bit two's complement (10 bytes).
    let v = BigInt.asUintN(64, value);
    this.ensure(10);
    while (v >= 0x80n) {
      this.buf[this.len++] = Number(v & 0x7fn) | 0x80;
      v >>= 7n;
    }
    this.buf[this.len++] = Number(v);
  }

  private tag(field: number, wire: number): void {
    this.rawVarint(BigInt((field << 3) | wire));
  }

  /** An int32/int64/enum/bool field. */
  varint(field: number, value: number | bigint | boolean): this {
    this.tag(field, WIRE_VARINT);
    this.rawVarint(
      typeof value === 'bigint' ? value : BigInt(typeof value === 'boolean' ? (value ? 1 : 0) : Math.trunc(value)),
    );
    return this;
  }

  /** A float field (fixed32). */
  float(field: number, value: number): this {
    this.tag(field, WIRE_FIXED32);
    this.ensure(4);
    new DataView(this.buf.buffer).setFloat32(this.len, value, true);
    this.len += 4;
    return this;
  }

  /** A bytes field (or an embedded message already serialised). */
  bytes(field: number, value: Uint8Array): this {
    this.tag(field, WIRE_LEN);
    this.rawVarint(BigInt(value.length));
    this.ensure(value.length);
    this.buf.set(value, this.len);
    this.len += value.length;
    return this;
  }

  /** A UTF-8 string field. */
  string(field: number, value: string): this {
    return this.bytes(field, new TextEncoder().encode(value));
  }

  /** An embedded message field built by `build`. */
  message(field: number, build: (w: ProtoWriter) => void): this {
    const inner = new ProtoWriter();
    build(inner);
    return this.bytes(field, inner.finish());
  }

  /** A packed repeated int64 field. */
  packedVarints(field: number, values: readonly (number | bigint)[]): this {
    const inner = new ProtoWriter();
    for (const v of values) inner.rawVarint(typeof v === 'bigint' ? v : BigInt(Math.trunc(v)));
    return this.bytes(field, inner.finish());
  }
}
