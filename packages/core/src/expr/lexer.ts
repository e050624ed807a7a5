import type { ExprError } from './ast.ts';

/**
 * Token kinds. `op` covers operators and punctuation; keywords are `ident` tokens checked by the parser.
 * `error` ends the list where the input stops making sense, so the parser reports errors in source order.
 */
export type TokenType = 'number' | 'ident' | 'op' | 'eof' | 'error';

export interface Token {
  type: TokenType;
  /** The source text of the token (empty for `eof`). */
  text: string;
  start: number;
  end: number;
  /** Only on `error` tokens. */
  error?: ExprError;
}

/** Longest inputs the lexer accepts; conditions are one-liners, so this only bounds hostile input. */
export const MAX_EXPRESSION_LENGTH = 10_000;

const OPERATORS = ['==', '!=', '<=', '>=', '<', '>', '+', '-', '*', '/', '(', ')', '[', ']', '.', ','];
const MISTAKES: Record<string, string> = {
  '=': "use '==' to compare",
  '!': "use 'not' to negate",
  '&': "use 'and'",
  '|': "use 'or'",
  '**': 'powers are not supported',
  '%': 'the remainder operator is not supported',
};

class LexError extends Error {
  constructor(readonly error: ExprError) {
    super(error.message);
  }
}

function isDigit(c: string | undefined): boolean {
  return c !== undefined && c >= '0' && c <= '9';
}
function isIdentStart(c: string | undefined): boolean {
  return c !== undefined && ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c === '_');
}
function isIdentPart(c: string | undefined): boolean {
  return isIdentStart(c) || isDigit(c);
}

/** Describes a character for a message without echoing invisible or confusable text verbatim. */
function describeChar(ch: string): string {
  const cp = ch.codePointAt(0) ?? 0;
  const hex = `U+${cp.toString(16).toUpperCase().padStart(4, '0')}`;
  const printable = cp > 0x20 && cp !== 0x7f && !(cp >= 0x80 && cp <= 0xa0) && !/\s/u.test(ch);
  if (cp < 0x80 && printable) return `'${ch}'`;
  if (!printable)
    return cp < 0x20 || (cp >= 0x7f && cp <= 0x9f) ? `control character ${hex}` : `space character ${hex}`;
  return `'${ch}' (${hex})`;
}

/** Scans a number: digits, optional fraction, optional exponent. Returns its end offset. */
function scanNumber(src: string, start: number): number {
  let i = start;
  while (isDigit(src[i])) i++;
  if (src[i] === '.') {
    i++;
    while (isDigit(src[i])) i++;
  }
  if (src[i] === 'e' || src[i] === 'E') {
    let j = i + 1;
    if (src[j] === '+' || src[j] === '-') j++;
    if (!isDigit(src[j])) throw malformed(src, start, j);
    while (isDigit(src[j])) j++;
    i = j;
  }
  if (isIdentPart(src[i]) || src[i] === '.') throw malformed(src, start, i + 1);
  return i;
}

function malformed(src: string, start: number, end: number): LexError {
  let e = end;
  while (isIdentPart(src[e]) || src[e] === '.') e++;
  return new LexError({
    message: 'malformed number',
    column: start + 1,
    length: Math.max(1, Math.min(e, src.length) - start),
  });
}

function scanOperator(src: string, i: number): Token {
  for (const bad of ['**']) {
    if (src.startsWith(bad, i)) throw new LexError({ message: MISTAKES[bad]!, column: i + 1, length: bad.length });
  }
  for (const op of OPERATORS) {
    if (src.startsWith(op, i)) return { type: 'op', text: op, start: i, end: i + op.length };
  }
  const ch = String.fromCodePoint(src.codePointAt(i) ?? 0);
  const hint = MISTAKES[ch];
  const message = hint !== undefined ? `unexpected '${ch}': ${hint}` : `unexpected ${describeChar(ch)}`;
  throw new LexError({ message, column: i + 1, length: ch.length });
}

/**
 * Splits an expression into tokens, ending with an `eof` token, or with an `error` token (carrying the
 * message and column) at the first character that cannot start a token.
 * @example tokenize('len(x)').map((t) => t.text) // ['len', '(', 'x', ')', '']
 */
export function tokenize(src: string): Token[] {
  const tokens: Token[] = [];
  try {
    scan(src, tokens);
  } catch (err) {
    if (!(err instanceof LexError)) throw err;
    const start = err.error.column - 1;
    tokens.push({ type: 'error', text: '', start, end: start + err.error.length, error: err.error });
  }
  return tokens;
}

function scan(src: string, tokens: Token[]): void {
  if (src.length > MAX_EXPRESSION_LENGTH) {
    throw new LexError({
      message: `expression is too long (${src.length} characters; the limit is ${MAX_EXPRESSION_LENGTH})`,
      column: MAX_EXPRESSION_LENGTH + 1,
      length: src.length - MAX_EXPRESSION_LENGTH,
    });
  }
  let i = 0;
  while (i < src.length) {
    const c = src[i]!;
    if (c === ' ' || c === '\t' || c === '\n' || c === '\r') {
      i++;
    } else if (isDigit(c) || (c === '.' && isDigit(src[i + 1]))) {
      const end = scanNumber(src, i);
      tokens.push({ type: 'number', text: src.slice(i, end), start: i, end });
      i = end;
    } else if (isIdentStart(c)) {
      let end = i + 1;
      while (isIdentPart(src[end])) end++;
      tokens.push({ type: 'ident', text: src.slice(i, end), start: i, end });
      i = end;
    } else {
      const tok = scanOperator(src, i);
      tokens.push(tok);
      i = tok.end;
    }
  }
  tokens.push({ type: 'eof', text: '', start: src.length, end: src.length });
}
