/**
 * Tokenizer for protobuf text format, as protoc's `io::Tokenizer` splits it: identifiers, numbers,
 * quoted strings (escapes decoded, bytes read as UTF-8), one-character symbols; `#` comments skipped.
 */

export interface PbtxtError {
  /** 1-based line. */
  line: number;
  /** 1-based column (UTF-16 code units). */
  column: number;
  message: string;
}

export type TokenType = 'ident' | 'number' | 'string' | 'symbol' | 'eof';

export interface Token {
  type: TokenType;
  /** Source text of the token (for strings, the decoded value is in `value`). */
  text: string;
  value: string;
  line: number;
  column: number;
}

/** Thrown inside the parser; turned into `{ ok: false, error }` at the API boundary. */
export class PbtxtSyntaxError extends Error {
  constructor(readonly error: PbtxtError) {
    super(`${error.line}:${error.column}: ${error.message}`);
  }
}

const IDENT_START = /[A-Za-z_]/;
const IDENT_CHAR = /[A-Za-z0-9_]/;
const SIMPLE_ESCAPES: Record<string, number> = {
  n: 10,
  t: 9,
  r: 13,
  a: 7,
  b: 8,
  f: 12,
  v: 11,
  '\\': 92,
  "'": 39,
  '"': 34,
  '?': 63,
};

/** Encodes one code point as UTF-8 bytes. */
function pushUtf8(out: number[], cp: number): void {
  if (cp < 0x80) out.push(cp);
  else if (cp < 0x800) out.push(0xc0 | (cp >> 6), 0x80 | (cp & 63));
  else if (cp < 0x10000) out.push(0xe0 | (cp >> 12), 0x80 | ((cp >> 6) & 63), 0x80 | (cp & 63));
  else out.push(0xf0 | (cp >> 18), 0x80 | ((cp >> 12) & 63), 0x80 | ((cp >> 6) & 63), 0x80 | (cp & 63));
}

/** Decodes UTF-8 bytes; malformed sequences become U+FFFD. */
function decodeUtf8(bytes: readonly number[]): string {
  let s = '';
  for (let i = 0; i < bytes.length;) {
    const b = bytes[i] ?? 0;
    const len = b < 0x80 ? 1 : b >= 0xf0 && b < 0xf8 ? 4 : b >= 0xe0 ? 3 : b >= 0xc0 ? 2 : 0;
    let cp = len === 1 ? b : len === 2 ? b & 31 : len === 3 ? b & 15 : b & 7;
    let ok = len > 0 && i + len <= bytes.length;
    for (let k = 1; ok && k < len; k++) {
      const c = bytes[i + k] ?? 0;
      if ((c & 0xc0) !== 0x80) ok = false;
      cp = (cp << 6) | (c & 63);
    }
    const min = [0, 0, 0x80, 0x800, 0x10000][len] ?? 0;
    if (!ok || cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff)) {
      s += '\ufffd';
      i += 1;
      continue;
    }
    s += String.fromCodePoint(cp);
    i += len;
  }
  return s;
}

/** Splits `text` into tokens; throws {@link PbtxtSyntaxError} on a malformed string or number. */
export function tokenize(text: string): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  let line = 1;
  let lineStart = 0;
  const fail = (at: number, message: string): never => {
    throw new PbtxtSyntaxError({ line, column: at - lineStart + 1, message });
  };
  while (i < text.length) {
    const c = text[i] ?? '';
    if (c === '\n') {
      i++;
      line++;
      lineStart = i;
    } else if (c === ' ' || c === '\t' || c === '\r' || c === '\f' || c === '\v') {
      i++;
    } else if (c === '#') {
      while (i < text.length && text[i] !== '\n') i++;
    } else {
      const start = i;
      const push = (type: TokenType, end: number, value?: string): void => {
        const src = text.slice(start, end);
        tokens.push({ type, text: src, value: value ?? src, line, column: start - lineStart + 1 });
        i = end;
      };
      if (IDENT_START.test(c)) {
        let j = i + 1;
        while (j < text.length && IDENT_CHAR.test(text[j] ?? '')) j++;
        push('ident', j);
      } else if (/[0-9]/.test(c) || (c === '.' && /[0-9]/.test(text[i + 1] ?? ''))) {
        push(
          'number',
          scanNumber(text, i, (m) => fail(start, m)),
        );
      } else if (c === '"' || c === "'") {
        const [end, value] = scanString(text, i, (at, m) => fail(at, m));
        push('string', end, value);
      } else {
        push('symbol', i + 1);
      }
    }
  }
  tokens.push({ type: 'eof', text: '', value: '', line, column: i - lineStart + 1 });
  return tokens;
}

function scanNumber(text: string, start: number, fail: (message: string) => never): number {
  let j = start;
  const digits = (re: RegExp): void => {
    while (j < text.length && re.test(text[j] ?? '')) j++;
  };
  if (text[j] === '0' && (text[j + 1] === 'x' || text[j + 1] === 'X')) {
    j += 2;
    const from = j;
    digits(/[0-9a-fA-F]/);
    if (j === from) fail('"0x" must be followed by hex digits');
  } else {
    digits(/[0-9]/);
    if (text[j] === '.') {
      j++;
      digits(/[0-9]/);
    }
    if (text[j] === 'e' || text[j] === 'E') {
      j++;
      if (text[j] === '+' || text[j] === '-') j++;
      const from = j;
      digits(/[0-9]/);
      if (j === from) fail('"e" must be followed by an exponent');
    }
    if (text[j] === 'f' || text[j] === 'F') j++;
  }
  if (j < text.length && /[A-Za-z0-9_.]/.test(text[j] ?? '')) {
    fail(`malformed number "${text.slice(start, j + 1)}"`);
  }
  return j;
}

function scanString(text: string, start: number, fail: (at: number, message: string) => never): [number, string] {
  const quote = text[start];
  const bytes: number[] = [];
  let j = start + 1;
  for (;;) {
    if (j >= text.length || text[j] === '\n') fail(start, 'unterminated string');
    const c = text[j] ?? '';
    if (c === quote) return [j + 1, decodeUtf8(bytes)];
    if (c !== '\\') {
      const cp = text.codePointAt(j) ?? 0;
      pushUtf8(bytes, cp >= 0xd800 && cp <= 0xdfff ? 0xfffd : cp);
      j += cp > 0xffff ? 2 : 1;
      continue;
    }
    j = scanEscape(text, j, bytes, fail);
  }
}

/** Reads the escape at `text[at] === '\\'`, appends its bytes, returns the index after it. */
function scanEscape(text: string, at: number, bytes: number[], fail: (at: number, message: string) => never): number {
  const e = text[at + 1] ?? '';
  const simple = SIMPLE_ESCAPES[e];
  if (simple !== undefined) {
    bytes.push(simple);
    return at + 2;
  }
  const run = (from: number, re: RegExp, max: number): string => {
    let k = from;
    while (k < text.length && k - from < max && re.test(text[k] ?? '')) k++;
    return text.slice(from, k);
  };
  if (/[0-7]/.test(e)) {
    const oct = run(at + 1, /[0-7]/, 3);
    bytes.push(parseInt(oct, 8) & 0xff);
    return at + 1 + oct.length;
  }
  if (e === 'x' || e === 'X') {
    const hex = run(at + 2, /[0-9a-fA-F]/, 2);
    if (!hex) fail(at, 'expected hex digits after "\\x"');
    bytes.push(parseInt(hex, 16));
    return at + 2 + hex.length;
  }
  if (e === 'u' || e === 'U') {
    const n = e === 'u' ? 4 : 8;
    const hex = run(at + 2, /[0-9a-fA-F]/, n);
    const cp = parseInt(hex, 16);
    if (hex.length !== n || cp > 0x10ffff) fail(at, `expected ${n} hex digits after "\\${e}"`);
    pushUtf8(bytes, cp >= 0xd800 && cp <= 0xdfff ? 0xfffd : cp);
    return at + 2 + n;
  }
  return fail(at, `invalid escape sequence "\\${e}"`);
}
