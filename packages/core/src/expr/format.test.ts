import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { EXPR_FUNCTIONS, KEYWORDS, type Expr } from './ast.ts';
import { formatExpression, formatNumber } from './format.ts';
import { parseExpression } from './parser.ts';

/** Drops offsets so trees built by hand and trees read back from text compare equal. */
function strip(e: Expr): unknown {
  return JSON.parse(
    JSON.stringify(e, (k, v: unknown) =>
      ['start', 'end', 'opStart', 'indexStart', 'indexEnd'].includes(k) ? undefined : v,
    ),
  );
}

const at = { start: 0, end: 0 };
const name = fc.stringMatching(/^[A-Za-z_][A-Za-z0-9_]{0,6}$/).filter((s) => !KEYWORDS.has(s));
const literal = fc
  .oneof(fc.nat(), fc.double({ min: 0, noNaN: true }), fc.constant(Infinity))
  .filter((v) => !Object.is(v, -0));
const ref = name.map((n): Expr => ({ type: 'ref', name: n, ...at }));

/** Any syntactically possible tree, well typed or not. */
const anyExpr = fc.letrec<{ e: Expr }>((tie) => ({
  e: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    literal.map((value): Expr => ({ type: 'number', value, ...at })),
    fc.boolean().map((value): Expr => ({ type: 'bool', value, ...at })),
    ref,
    fc.tuple(name, fc.integer({ min: -4, max: 4 })).map(([n, index]): Expr => ({
      type: 'shape',
      tensor: { type: 'ref', name: n, ...at },
      index,
      indexStart: 0,
      indexEnd: 0,
      ...at,
    })),
    fc
      .tuple(fc.constantFrom(...EXPR_FUNCTIONS), fc.array(tie('e'), { maxLength: 2 }))
      .map(([fn, args]): Expr => ({ type: 'call', fn, args, ...at })),
    fc
      .tuple(fc.constantFrom('-' as const, 'not' as const), tie('e'))
      .map(([op, operand]): Expr => ({ type: 'unary', op, operand, ...at })),
    fc
      .tuple(fc.constantFrom('+' as const, '-' as const, '*' as const, '/' as const), tie('e'), tie('e'))
      .map(([op, left, right]): Expr => ({ type: 'binary', op, left, right, opStart: 0, ...at })),
    fc
      .tuple(
        fc.constantFrom('==' as const, '!=' as const, '<' as const, '<=' as const, '>' as const, '>=' as const),
        tie('e'),
        tie('e'),
      )
      .map(([op, left, right]): Expr => ({ type: 'compare', op, left, right, opStart: 0, ...at })),
    fc
      .tuple(fc.constantFrom('and' as const, 'or' as const), tie('e'), tie('e'))
      .map(([op, left, right]): Expr => ({ type: 'logical', op, left, right, opStart: 0, ...at })),
  ),
})).e;

describe('formatExpression', () => {
  it.each([
    ['( len(x) ) == 0', 'len(x) == 0'],
    ['a - (b - c)', 'a - (b - c)'],
    ['(a - b) - c', 'a - b - c'],
    ['-(a * b)', '-(a * b)'],
    ['(-a) * b', '-a * b'],
    ['not (a and b)', 'not (a and b)'],
    ['(not a) == b', '(not a) == b'],
    ['(a < b) == (c < d)', '(a < b) == (c < d)'],
    ['a or (b or c)', 'a or (b or c)'],
    ['x.shape[ -2 ]', 'x.shape[-2]'],
    ['1e999 > 1E3', '1e999 > 1000'],
  ])('%s → %s', (src, text) => {
    const r = parseExpression(src);
    expect(r.ok && formatExpression(r.ast)).toBe(text);
  });

  it('refuses to print NaN, which no literal denotes', () => {
    expect(() => formatNumber(NaN)).toThrow(/NaN/);
  });

  it('prints every tree so that it parses back to the same tree', () => {
    fc.assert(
      fc.property(anyExpr, (ast) => {
        const r = parseExpression(formatExpression(ast));
        expect(r.ok ? strip(r.ast) : r.error).toEqual(strip(ast));
      }),
      { numRuns: 500 },
    );
  });

  it('never throws on arbitrary text, and what parses prints to a fixed point', () => {
    const pieces = fc.constantFrom(
      'a',
      'len',
      '(',
      ')',
      ' ',
      '.shape[',
      ']',
      '-',
      '1',
      '.5',
      'e3',
      'not ',
      ' and ',
      ' or ',
      '==',
      '<',
      '*',
      '/',
      '+',
      ',',
      'true',
      '\u00e9',
      '\u0000',
      '\ud83d\ude00',
      '"',
      '[',
    );
    const text = fc.oneof(
      fc.string({ unit: 'binary', maxLength: 40 }),
      fc.array(pieces, { maxLength: 25 }).map((p) => p.join('')),
    );
    fc.assert(
      fc.property(text, (src) => {
        const r = parseExpression(src);
        if (!r.ok) {
          expect(r.error.column).toBeGreaterThanOrEqual(1);
          expect(r.error.column + r.error.length).toBeLessThanOrEqual(src.length + 1);
          return;
        }
        const once = formatExpression(r.ast);
        const again = parseExpression(once);
        expect(again.ok && formatExpression(again.ast)).toBe(once);
      }),
      { numRuns: 1000 },
    );
  });
});
