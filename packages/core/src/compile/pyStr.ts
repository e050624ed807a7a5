/**
 * Safe Python source fragments. Generated Python never interpolates user text directly: every
 * string goes through `pyStr` (an ASCII-only Python literal) and every identifier through `pyIdent`.
 */

import { PYTHON_KEYWORDS, PYTHON_SOFT_KEYWORDS } from '../validate/names.ts';

/**
 * A double-quoted Python string literal for `s`, pure ASCII: quotes, backslashes, control
 * characters (NUL, newlines…) and every non-ASCII code point are escaped.
 * @example pyStr('a "b"\n') === '"a \\"b\\"\\n"'
 */
export function pyStr(s: string): string {
  let out = '"';
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    // Keep surrogate pairs together as one \U escape; a lone surrogate becomes \uXXXX.
    if (c >= 0xd800 && c <= 0xdbff && i + 1 < s.length) {
      const d = s.charCodeAt(i + 1);
      if (d >= 0xdc00 && d <= 0xdfff) {
        const cp = (c - 0xd800) * 0x400 + (d - 0xdc00) + 0x10000;
        out += `\\U${cp.toString(16).padStart(8, '0')}`;
        i++;
        continue;
      }
    }
    out += escapeUnit(c);
  }
  return `${out}"`;
}

function escapeUnit(c: number): string {
  switch (c) {
    case 0x5c:
      return '\\\\';
    case 0x22:
      return '\\"';
    case 0x0a:
      return '\\n';
    case 0x0d:
      return '\\r';
    case 0x09:
      return '\\t';
  }
  if (c < 0x20 || c === 0x7f) return `\\x${c.toString(16).padStart(2, '0')}`;
  if (c > 0x7e) return `\\u${c.toString(16).padStart(4, '0')}`;
  return String.fromCharCode(c);
}

/**
 * A Python literal for a JSON-like value (str, number, bool, None, list, dict with str keys).
 * Non-finite numbers become `float("inf")`/`float("nan")`.
 * @example pyValue({ a: [1, true] }) === '{"a": [1, True]}'
 */
export function pyValue(v: unknown): string {
  if (v === null || v === undefined) return 'None';
  if (typeof v === 'string') return pyStr(v);
  if (typeof v === 'boolean') return v ? 'True' : 'False';
  if (typeof v === 'number') {
    if (Number.isNaN(v)) return 'float("nan")';
    if (!Number.isFinite(v)) return v > 0 ? 'float("inf")' : 'float("-inf")';
    return String(v);
  }
  if (typeof v === 'bigint') return v.toString();
  if (Array.isArray(v)) return `[${v.map(pyValue).join(', ')}]`;
  if (typeof v === 'object') {
    const entries = Object.entries(v as Record<string, unknown>);
    return `{${entries.map(([k, x]) => `${pyStr(k)}: ${pyValue(x)}`).join(', ')}}`;
  }
  throw new Error(`cannot write ${typeof v} as a Python value`);
}

/**
 * A valid Python identifier derived from `s` (letters, digits, underscore; never a keyword, never
 * starting with a digit). Not injective: callers that need uniqueness use `IdentAllocator`.
 * @example pyIdent('det-1') === 'det_1'
 */
export function pyIdent(s: string): string {
  let id = s.replace(/[^A-Za-z0-9_]/g, '_');
  if (id === '' || /^[0-9]/.test(id)) id = `_${id}`;
  if (PYTHON_KEYWORDS.has(id) || PYTHON_SOFT_KEYWORDS.has(id)) id = `${id}_`;
  return id;
}

/** Hands out distinct identifiers for distinct keys, deterministically in call order. */
export class IdentAllocator {
  private readonly byKey = new Map<string, string>();
  private readonly used = new Set<string>();

  constructor(private readonly prefix = '') {}

  /** The identifier for `key` (the same key always gets the same identifier). */
  get(key: string): string {
    const known = this.byKey.get(key);
    if (known !== undefined) return known;
    const base = pyIdent(this.prefix + key);
    let id = base;
    for (let n = 2; this.used.has(id); n++) id = `${base}_${n}`;
    this.used.add(id);
    this.byKey.set(key, id);
    return id;
  }
}

/** A valid Triton model / tensor name fragment: keeps `[A-Za-z0-9_.-]`, replaces the rest with `_`. */
export function tritonSafe(s: string): string {
  const out = s.replace(/[^A-Za-z0-9_.-]/g, '_');
  return out === '' ? '_' : out;
}

/** Indents every non-empty line of `code` by `n` spaces. */
export function indent(code: string, n: number): string {
  const pad = ' '.repeat(n);
  return code
    .split('\n')
    .map((l) => (l === '' ? l : pad + l))
    .join('\n');
}
