/**
 * Tokenizer for protobuf text format, as protoc's `io::Tokenizer` splits it: identifiers, numbers,
 * quoted strings (escapes decoded, bytes read as UTF-8), one-character symbols; `#` comments skipped.
 *
 * A cursor, not a token list: {@link Lexer} holds the current token in its fields and `advance()` scans the
 * next one, so a parse stops reading where it fails and makes no object per token. Positions are offsets;
 * line and column are counted only for an error ({@link Lexer.fail}).
 */

export interface PbtxtError {
  /** 1-based line. */
  line: number;
  /** 1-based column (UTF-16 code units). */
  column: number;
  message: string;
}

export type TokenType = 'ident' | 'number' | 'string' | 'symbol' | 'eof';

/** What the scalar readers look at: the kind of the current token and its source text. */
export interface Token {
  readonly type: TokenType;
  /** Source text of the token (for a string, the decoded value is the lexer's `value`). */
  readonly text: string;
}

/** Thrown inside the parser; turned into `{ ok: false, error }` at the API boundary. */
export class PbtxtSyntaxError extends Error {
  constructor(readonly error: PbtxtError) {
    super(`${error.line}:${error.column}: ${error.message}`);
  }
}

/** Character codes the scanner compares against. */
const CH = {
  tab: 9,
  newline: 10,
  vtab: 11,
  formFeed: 12,
  ret: 13,
  space: 32,
  dquote: 34,
  hash: 35,
  squote: 39,
  plus: 43,
  minus: 45,
  dot: 46,
  zero: 48,
  seven: 55,
  nine: 57,
  backslash: 92,
  underscore: 95,
  e: 101,
  f: 102,
  u: 117,
  x: 120,
  upperU: 85,
  upperX: 88,
} as const;

const isDigit = (c: number): boolean => c >= CH.zero && c <= CH.nine;
const isOctal = (c: number): boolean => c >= CH.zero && c <= CH.seven;
const isHex = (c: number): boolean => isDigit(c) || ((c | 32) >= 97 && (c | 32) <= 102);
const isLetter = (c: number): boolean => (c | 32) >= 97 && (c | 32) <= 122;
const isIdentStart = (c: number): boolean => isLetter(c) || c === CH.underscore;
const isIdentChar = (c: number): boolean => isIdentStart(c) || isDigit(c);

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

/** A lone surrogate (a pair is one code point under the `u` flag). */
const LONE_SURROGATE = /\p{Cs}/gu;

/** Encodes one code point as UTF-8 bytes. */
function pushUtf8(out: number[], cp: number): void {
  if (cp < 0x80) out.push(cp);
  else if (cp < 0x800) out.push(0xc0 | (cp >> 6), 0x80 | (cp & 63));
  else if (cp < 0x10000) out.push(0xe0 | (cp >> 12), 0x80 | ((cp >> 6) & 63), 0x80 | (cp & 63));
  else out.push(0xf0 | (cp >> 18), 0x80 | ((cp >> 12) & 63), 0x80 | ((cp >> 6) & 63), 0x80 | (cp & 63));
}

/** The smallest code point of a UTF-8 sequence of each length (a smaller one is overlong). */
const UTF8_MIN = [0, 0, 0x80, 0x800, 0x10000];

/** Decodes UTF-8 bytes; each byte of a malformed sequence becomes U+FFFD. */
function decodeUtf8(bytes: readonly number[]): string {
  const units: number[] = [];
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
    const min = UTF8_MIN[len] ?? 0;
    if (!ok || cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff)) {
      units.push(0xfffd);
      i += 1;
      continue;
    }
    if (cp > 0xffff) units.push(0xd800 + ((cp - 0x10000) >> 10), 0xdc00 + ((cp - 0x10000) & 1023));
    else units.push(cp);
    i += len;
  }
  let s = '';
  for (let i = 0; i < units.length; i += 8192) s += String.fromCharCode(...units.slice(i, i + 8192));
  return s;
}

/**
 * The tokenizer's cursor over `src`: `type`, `text`, `value` and `start` describe the current token.
 * @example const lex = new Lexer('dims: [1]'); lex.text // 'dims'; lex.advance(); lex.text // ':'
 */
export class Lexer implements Token {
  type: TokenType = 'eof';
  text = '';
  /** A string token's decoded value; otherwise its text. */
  value = '';
  /** Offset of the current token in `src`. */
  start = 0;
  private end = 0;
  /** The bytes of the escape run being decoded, reused from run to run. */
  private readonly bytes: number[] = [];

  constructor(private readonly src: string) {
    this.advance();
  }

  /** Whether the current token is the one-character symbol `sym`. */
  isSymbol(sym: string): boolean {
    return this.type === 'symbol' && this.text === sym;
  }

  /** Line and column of offset `at`, counted from the source: done only for an error, so never per token. */
  position(at: number): { line: number; column: number } {
    let line = 1;
    let lineStart = 0;
    for (let i = this.src.indexOf('\n'); i !== -1 && i < at; i = this.src.indexOf('\n', i + 1)) {
      line++;
      lineStart = i + 1;
    }
    return { line, column: at - lineStart + 1 };
  }

  /** Throws a {@link PbtxtSyntaxError} placed at offset `at` (default: the current token). */
  fail(message: string, at: number = this.start): never {
    throw new PbtxtSyntaxError({ ...this.position(at), message });
  }

  /** Scans the next token; at the end of input it stays on `eof`. */
  advance(): void {
    const src = this.src;
    let i = this.end;
    for (;;) {
      const c = src.charCodeAt(i);
      if (c === CH.space || c === CH.newline || c === CH.tab || c === CH.ret || c === CH.formFeed || c === CH.vtab) i++;
      else if (c === CH.hash) {
        const nl = src.indexOf('\n', i);
        i = nl === -1 ? src.length : nl;
      } else break;
    }
    this.start = i;
    if (i >= src.length) return this.set('eof', i, i);
    const c = src.charCodeAt(i);
    if (isIdentStart(c)) {
      let j = i + 1;
      while (j < src.length && isIdentChar(src.charCodeAt(j))) j++;
      this.set('ident', i, j);
    } else if (isDigit(c) || (c === CH.dot && isDigit(src.charCodeAt(i + 1)))) {
      this.set('number', i, this.scanNumber(i));
    } else if (c === CH.dquote || c === CH.squote) {
      this.scanString(i);
    } else {
      this.set('symbol', i, i + 1);
    }
  }

  private set(type: TokenType, start: number, end: number, value?: string): void {
    this.type = type;
    this.text = this.src.slice(start, end);
    this.value = value ?? this.text;
    this.end = end;
  }

  /** The offset after the run of characters passing `test` from `from`, at most `max` long. */
  private skip(from: number, test: (c: number) => boolean, max = Infinity): number {
    let k = from;
    while (k < this.src.length && k - from < max && test(this.src.charCodeAt(k))) k++;
    return k;
  }

  private scanNumber(start: number): number {
    const src = this.src;
    let j = start;
    if (src.charCodeAt(j) === CH.zero && (src.charCodeAt(j + 1) | 32) === CH.x) {
      j = this.skip(j + 2, isHex);
      if (j === start + 2) this.fail('"0x" must be followed by hex digits', start);
    } else {
      j = this.skip(j, isDigit);
      if (src.charCodeAt(j) === CH.dot) j = this.skip(j + 1, isDigit);
      if ((src.charCodeAt(j) | 32) === CH.e) {
        j++;
        if (src.charCodeAt(j) === CH.plus || src.charCodeAt(j) === CH.minus) j++;
        const from = j;
        j = this.skip(j, isDigit);
        if (j === from) this.fail('"e" must be followed by an exponent', start);
      }
      if ((src.charCodeAt(j) | 32) === CH.f) j++;
    }
    const next = src.charCodeAt(j);
    if (j < src.length && (isIdentChar(next) || next === CH.dot)) {
      this.fail(`malformed number "${src.slice(start, j + 1)}"`, start);
    }
    return j;
  }

  /**
   * Reads the quoted string at `start`. Text between escapes is taken as a slice (a lone surrogate becomes
   * U+FFFD); each run of escapes is decoded as UTF-8 bytes. Cutting there gives the same value as decoding
   * all the bytes at once: a plain character's bytes are a whole UTF-8 sequence, so no sequence spans a cut.
   */
  private scanString(start: number): void {
    const src = this.src;
    const quote = src.charCodeAt(start);
    let value = '';
    let j = start + 1;
    for (;;) {
      let k = j;
      for (let c = src.charCodeAt(k); k < src.length && c !== quote && c !== CH.backslash && c !== CH.newline;)
        c = src.charCodeAt(++k);
      if (k > j) value += src.slice(j, k).replace(LONE_SURROGATE, '\ufffd');
      const c = src.charCodeAt(k);
      if (k >= src.length || c === CH.newline) this.fail('unterminated string', start);
      if (c === quote) return this.set('string', start, k + 1, value);
      const bytes = this.bytes;
      bytes.length = 0;
      while (src.charCodeAt(k) === CH.backslash) k = this.scanEscape(k, bytes);
      value += decodeUtf8(bytes);
      j = k;
    }
  }

  /** Reads the escape at `src[at] === '\\'`, appends its bytes, returns the offset after it. */
  private scanEscape(at: number, bytes: number[]): number {
    const src = this.src;
    const e = src[at + 1] ?? '';
    const simple = SIMPLE_ESCAPES[e];
    if (simple !== undefined) {
      bytes.push(simple);
      return at + 2;
    }
    const code = src.charCodeAt(at + 1);
    if (isOctal(code)) {
      let v = 0;
      let k = at + 1;
      for (; k < at + 4 && isOctal(src.charCodeAt(k)); k++) v = v * 8 + src.charCodeAt(k) - CH.zero;
      bytes.push(v & 0xff);
      return k;
    }
    if (code === CH.x || code === CH.upperX) {
      const hex = src.slice(at + 2, this.skip(at + 2, isHex, 2));
      if (!hex) this.fail('expected hex digits after "\\x"', at);
      bytes.push(parseInt(hex, 16));
      return at + 2 + hex.length;
    }
    if (code === CH.u || code === CH.upperU) {
      const n = code === CH.u ? 4 : 8;
      const hex = src.slice(at + 2, this.skip(at + 2, isHex, n));
      const cp = parseInt(hex, 16);
      if (hex.length !== n || cp > 0x10ffff) this.fail(`expected ${n} hex digits after "\\${e}"`, at);
      pushUtf8(bytes, cp >= 0xd800 && cp <= 0xdfff ? 0xfffd : cp);
      return at + 2 + n;
    }
    return this.fail(`invalid escape sequence "\\${e}"`, at);
  }
}
