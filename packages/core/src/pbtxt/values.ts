/**
 * Scalar values of protobuf text format: integers, floats, bools, enums and strings, read from tokens
 * with protoc's rules, and checked against the field's type.
 */
import type { Token } from './lexer.ts';
import { ENUMS } from './protoEnums.ts';
import type { FieldDef, ScalarKind } from './schema.ts';

const INT_RANGES: Partial<Record<ScalarKind, [bigint, bigint]>> = {
  int32: [-(2n ** 31n), 2n ** 31n - 1n],
  uint32: [0n, 2n ** 32n - 1n],
  int64: [-(2n ** 63n), 2n ** 63n - 1n],
  uint64: [0n, 2n ** 64n - 1n],
};

/** The same bounds as doubles, for the small values {@link smallDecimal} reads (comparing with a bigint is slow). */
const NUMBER_RANGES: Partial<Record<ScalarKind, [number, number]>> = Object.fromEntries(
  Object.entries(INT_RANGES).map(([kind, [lo, hi]]) => [kind, [Number(lo), Number(hi)]]),
);

/** Parses an integer token's text (decimal, `0x` hex, leading-`0` octal); undefined when not an integer. */
function parseIntText(text: string): bigint | undefined {
  if (/^0[xX][0-9a-fA-F]+$/.test(text)) return BigInt(text);
  if (/^0[0-7]+$/.test(text)) return BigInt(`0o${text.slice(1)}`);
  if (/^(0|[1-9][0-9]*)$/.test(text)) return BigInt(text);
  return undefined;
}

/** A decimal integer of 1-15 digits (exact as a double; the common case, read without BigInt), else undefined. */
function smallDecimal(text: string): number | undefined {
  const n = text.length;
  if (n === 0 || n > 15 || (n > 1 && text.charCodeAt(0) === 48)) return undefined;
  for (let i = 0; i < n; i++) {
    const c = text.charCodeAt(i);
    if (c < 48 || c > 57) return undefined;
  }
  return Number(text);
}

/** Result of reading one scalar: the JSON value, or a message saying why the token does not fit. */
export type ScalarResult = { ok: true; value: number | boolean | string } | { ok: false; message: string };

const describe = (t: Token): string => (t.type === 'eof' ? 'end of input' : `"${t.text}"`);

/** Reads an integer of `kind` from `tok`, `negative` when a `-` preceded it. */
export function readInt(kind: ScalarKind, tok: Token, negative: boolean, field: string): ScalarResult {
  const small = tok.type === 'number' ? smallDecimal(tok.text) : undefined;
  const raw = small ?? (tok.type === 'number' ? parseIntText(tok.text) : undefined);
  if (raw === undefined) return { ok: false, message: `field "${field}" expects an integer, found ${describe(tok)}` };
  // `0 - raw`, not `-raw`: a negative zero reads as 0, as the BigInt path gives.
  const v = negative ? (typeof raw === 'number' ? 0 - raw : -raw) : raw;
  const [lo, hi] = INT_RANGES[kind] ?? [0n, 0n];
  const [nlo, nhi] = NUMBER_RANGES[kind] ?? [0, 0];
  if (typeof v === 'number' ? v < nlo || v > nhi : v < lo || v > hi)
    return {
      ok: false,
      message: `integer ${negative ? '-' : ''}${tok.text} is out of range for ${kind} field "${field}"`,
    };
  return { ok: true, value: Number(v) };
}

/** Reads a float/double (`1.5`, `1e-3`, `2f`, `inf`, `nan`, integers). */
export function readFloat(tok: Token, negative: boolean, field: string): ScalarResult {
  let v: number | undefined;
  if (tok.type === 'ident') {
    const low = tok.text.toLowerCase();
    if (low === 'inf' || low === 'infinity') v = Infinity;
    else if (low === 'nan') v = NaN;
  } else if (tok.type === 'number') {
    const int = smallDecimal(tok.text) ?? parseIntText(tok.text);
    v = int !== undefined ? Number(int) : Number(tok.text.replace(/[fF]$/, ''));
  }
  if (v === undefined || (Number.isNaN(v) && tok.type === 'number')) {
    return { ok: false, message: `field "${field}" expects a number, found ${describe(tok)}` };
  }
  return { ok: true, value: negative ? -v : v };
}

const TRUE = new Set(['true', 'True', 't', '1']);
const FALSE = new Set(['false', 'False', 'f', '0']);

/** Reads a bool: `true`/`True`/`t`/`1`, `false`/`False`/`f`/`0`. */
export function readBool(tok: Token, field: string): ScalarResult {
  if (tok.type === 'ident' || tok.type === 'number') {
    if (TRUE.has(tok.text)) return { ok: true, value: true };
    if (FALSE.has(tok.text)) return { ok: true, value: false };
  }
  return { ok: false, message: `field "${field}" expects true or false, found ${describe(tok)}` };
}

/** Reads an enum by name or number and returns its name. */
export function readEnum(enumName: string, tok: Token, negative: boolean, field: string): ScalarResult {
  const names = ENUMS[enumName] ?? [];
  const short = enumName.split('.').pop() ?? enumName;
  if (tok.type === 'ident' && !negative) {
    if (names.includes(tok.text)) return { ok: true, value: tok.text };
    return {
      ok: false,
      message: `unknown value "${tok.text}" for enum ${short} of field "${field}" (expected one of ${names.join(', ')})`,
    };
  }
  const int = tok.type === 'number' ? parseIntText(tok.text) : undefined;
  if (int === undefined)
    return { ok: false, message: `field "${field}" expects an enum ${short} value, found ${describe(tok)}` };
  const name = negative ? undefined : names[Number(int)];
  if (name === undefined)
    return {
      ok: false,
      message: `unknown number ${negative ? '-' : ''}${tok.text} for enum ${short} of field "${field}"`,
    };
  return { ok: true, value: name };
}

/** The value a field has when a map entry omits it (proto3 default). */
export function defaultScalar(field: FieldDef): number | boolean | string | Record<string, unknown> {
  const t = field.type;
  if (t.kind === 'message') return {};
  if (t.kind === 'enum') return ENUMS[t.enum]?.[0] ?? '';
  if (t.kind !== 'scalar') return {};
  if (t.scalar === 'bool') return false;
  if (t.scalar === 'string' || t.scalar === 'bytes') return '';
  return 0;
}

/** Sets an own enumerable property, safely even for keys such as `__proto__`. */
export function setOwn(obj: Record<string, unknown>, key: string, value: unknown): void {
  // Only `__proto__` is an accessor on Object.prototype; any other key assigns an own property.
  if (key === '__proto__')
    Object.defineProperty(obj, key, { value, writable: true, enumerable: true, configurable: true });
  else obj[key] = value;
}
