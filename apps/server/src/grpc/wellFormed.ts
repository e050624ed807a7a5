import { isUtf8 } from 'node:buffer';

// protobufjs decodes what a C++ server refuses to parse: a string or message whose length runs past the end of the
// bytes (it reads what there is), a string that is not UTF-8 (replaced by U+FFFD). Triton parses with C++ protobuf
// and answers such a request with gRPC's INTERNAL `Unable to parse request`, so the studio checks the wire format
// first, as that parser would. A known field sent with another wire type is refused too: C++ would keep it as an
// unknown field, protobufjs would read it as the known one, and only refusing it gives neither reading.

/** How a field is encoded: one scalar, a repeated scalar (packed or not), a string, bytes, or a nested message. */
type Kind = 'varint' | 'fixed64' | 'varints' | 'fixed32s' | 'fixed64s' | 'string' | 'bytes' | Schema;
interface Schema {
  [field: number]: Kind;
}

const PARAMETER: Schema = { 1: 'varint', 2: 'varint', 3: 'string', 4: 'fixed64', 5: 'varint' };
const PARAMETERS: Schema = { 1: 'string', 2: PARAMETER };
const CONTENTS: Schema = {
  1: 'varints',
  2: 'varints',
  3: 'varints',
  4: 'varints',
  5: 'varints',
  6: 'fixed32s',
  7: 'fixed64s',
  8: 'bytes',
};
const INPUT: Schema = { 1: 'string', 2: 'string', 3: 'varints', 4: PARAMETERS, 5: CONTENTS };
const OUTPUT: Schema = { 1: 'string', 2: PARAMETERS };
const INFER_REQUEST: Schema = {
  1: 'string',
  2: 'string',
  3: 'string',
  4: PARAMETERS,
  5: INPUT,
  6: OUTPUT,
  7: 'bytes',
};

/** The position after the varint at `at`, or -1 when it runs past `end` or over 10 bytes. */
function skipVarint(b: Uint8Array, at: number, end: number): number {
  for (let i = 0; i < 10 && at + i < end; i++) if (b[at + i]! < 0x80) return at + i + 1;
  return -1;
}

/** The varint at `at` as a number (exact up to 2^53, enough for tags and lengths) and the position after it (-1 past `end`). */
export function readVarint(b: Uint8Array, at: number, end: number): [number, number] {
  let value = 0;
  let scale = 1;
  for (let i = 0; i < 10 && at + i < end; i++) {
    const byte = b[at + i]!;
    value += (byte & 0x7f) * scale;
    if (byte < 0x80) return [value, at + i + 1];
    scale *= 128;
  }
  return [0, -1];
}

/** The expected wire types of a kind: 0 varint, 1 fixed64, 2 length-delimited, 5 fixed32. */
function wireTypes(kind: Kind): number[] {
  if (kind === 'varint') return [0];
  if (kind === 'fixed64') return [1];
  if (kind === 'varints') return [0, 2];
  if (kind === 'fixed32s') return [5, 2];
  if (kind === 'fixed64s') return [1, 2];
  return [2];
}

/** Whether the length-delimited content from `at` to `end` is what `kind` says it is. */
function contentFits(b: Uint8Array, at: number, end: number, kind: Kind): boolean {
  if (typeof kind === 'object') return messageFits(b, at, end, kind);
  if (kind === 'string') return isUtf8(b.subarray(at, end));
  if (kind === 'fixed32s') return (end - at) % 4 === 0;
  if (kind === 'fixed64s') return (end - at) % 8 === 0;
  if (kind === 'varints') {
    while (at < end) if ((at = skipVarint(b, at, end)) < 0) return false;
  }
  return true;
}

function messageFits(b: Uint8Array, at: number, end: number, schema: Schema): boolean {
  while (at < end) {
    const [tag, next] = readVarint(b, at, end);
    if (next < 0) return false;
    at = next;
    const field = Math.floor(tag / 8);
    const wire = tag % 8;
    const kind = schema[field];
    if (field === 0 || (kind !== undefined && !wireTypes(kind).includes(wire))) return false;
    if (wire === 0) at = skipVarint(b, at, end);
    else if (wire === 1) at = at + 8 <= end ? at + 8 : -1;
    else if (wire === 5) at = at + 4 <= end ? at + 4 : -1;
    else if (wire === 2) {
      const [length, start] = readVarint(b, at, end);
      if (start < 0 || start + length > end) return false;
      if (kind !== undefined && !contentFits(b, start, start + length, kind)) return false;
      at = start + length;
    } else return false; // groups (3, 4) have no place in these proto3 messages; 6 and 7 are no wire type
    if (at < 0) return false;
  }
  return at === end;
}

/**
 * Whether `bytes` parse as a ModelInferRequest the way C++ protobuf parses them: every length within its message,
 * every varint ended, known fields with their wire types, strings in UTF-8. Unknown fields of the four plain wire
 * types are skipped, as there.
 * @example wellFormedInferRequest(Buffer.from([0x0a, 0x05, 0x41])) // false: model_name's 5 bytes are not there
 */
export function wellFormedInferRequest(bytes: Uint8Array): boolean {
  return messageFits(bytes, 0, bytes.byteLength, INFER_REQUEST);
}
