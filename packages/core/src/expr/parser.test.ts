import { describe, expect, it } from 'vitest';
import type { Expr } from './ast.ts';
import { MAX_AST_DEPTH, MAX_NESTING, parseExpression } from './parser.ts';

/** Compact Lisp-like form of a tree, so tables stay readable. */
function sexpr(e: Expr): string {
  switch (e.type) {
    case 'number':
      return String(e.value);
    case 'bool':
      return String(e.value);
    case 'ref':
      return e.name;
    case 'shape':
      return `(shape ${e.tensor.name} ${e.index})`;
    case 'call':
      return `(${e.fn}${e.args.map((a) => ` ${sexpr(a)}`).join('')})`;
    case 'unary':
      return `(${e.op} ${sexpr(e.operand)})`;
    default:
      return `(${e.op} ${sexpr(e.left)} ${sexpr(e.right)})`;
  }
}

function parsed(src: string): Expr {
  const r = parseExpression(src);
  if (!r.ok) throw new Error(`${src}: ${r.error.message} at ${r.error.column}`);
  return r.ast;
}

describe('parseExpression: trees', () => {
  it.each([
    ['len(boxes) == 0', '(== (len boxes) 0)'],
    ['max(scores) < 0.5', '(< (max scores) 0.5)'],
    ['x.shape[1] >= 3', '(>= (shape x 1) 3)'],
    ['x.shape[-1] != 2', '(!= (shape x -1) 2)'],
    ['1 + 2 * 3', '(+ 1 (* 2 3))'],
    ['1 - 2 - 3', '(- (- 1 2) 3)'],
    ['8 / 4 / 2', '(/ (/ 8 4) 2)'],
    ['(1 - 2) * 3', '(* (- 1 2) 3)'],
    ['-x * 2', '(* (- x) 2)'],
    ['- - x', '(- (- x))'],
    ['-(a + b)', '(- (+ a b))'],
    ['a or b and c', '(or a (and b c))'],
    ['a and b or c', '(or (and a b) c)'],
    ['not a and b', '(and (not a) b)'],
    ['not a == b', '(not (== a b))'],
    ['not not a', '(not (not a))'],
    ['a == b or c', '(or (== a b) c)'],
    ['(a == b) == (c < d)', '(== (== a b) (< c d))'],
    ['true != false', '(!= true false)'],
    ['any(mask) or all(flags)', '(or (any mask) (all flags))'],
    ['size(t) + len(t) > sum(t) - mean(t) + min(t)', '(> (+ (size t) (len t)) (+ (- (sum t) (mean t)) (min t)))'],
    ['1.5e3 < .5 + 2. + 1E-2', '(< 1500 (+ (+ 0.5 2) 0.01))'],
    ['1e999 > 0', '(> Infinity 0)'],
    ['len(a, b)', '(len a b)'],
    ['len()', '(len)'],
    ['max(a + 1) > 0', '(> (max (+ a 1)) 0)'],
    ['max', 'max'],
    ['_x9 == snake_Case_2', '(== _x9 snake_Case_2)'],
    ['  \tlen(x)\r\n== 0 ', '(== (len x) 0)'],
  ])('%s', (src, tree) => {
    expect(sexpr(parsed(src))).toBe(tree);
  });

  it('records 0-based offsets on every node', () => {
    expect(parsed('len(b) == -2')).toEqual({
      type: 'compare',
      op: '==',
      start: 0,
      end: 12,
      opStart: 7,
      left: { type: 'call', fn: 'len', start: 0, end: 6, args: [{ type: 'ref', name: 'b', start: 4, end: 5 }] },
      right: { type: 'unary', op: '-', start: 10, end: 12, operand: { type: 'number', value: 2, start: 11, end: 12 } },
    });
  });

  it('records the span of a shape index, sign included', () => {
    expect(parsed(' x.shape[ -1 ]')).toEqual({
      type: 'shape',
      index: -1,
      indexStart: 10,
      indexEnd: 12,
      start: 1,
      end: 14,
      tensor: { type: 'ref', name: 'x', start: 1, end: 2 },
    });
  });

  it('excludes enclosing parentheses from a node', () => {
    const e = parsed('(a) and (b)');
    expect([e.start, e.end]).toEqual([1, 10]);
  });
});

describe('parseExpression: errors', () => {
  it.each([
    ['', 'the expression is empty', 1, 0],
    ['   ', 'the expression is empty', 4, 0],
    ['a < b < c', 'comparisons cannot be chained', 7, 1],
    ['a == b != c', 'comparisons cannot be chained', 8, 2],
    ['len(x) ==', 'expected a value, found the end of the expression', 10, 0],
    ['(a == b', "expected ')' to close the '(' at column 1", 8, 0],
    ['a == b)', "unmatched ')'", 7, 1],
    ['a b', "unexpected 'b' after a complete expression", 3, 1],
    ['x = 1', "unexpected '=': use '==' to compare", 3, 1],
    ['!x', "unexpected '!': use 'not' to negate", 1, 1],
    ['a && b', "unexpected '&': use 'and'", 3, 1],
    ['a || b', "unexpected '|': use 'or'", 3, 1],
    ['2 ** 3', 'powers are not supported', 3, 2],
    ['5 % 2', 'the remainder operator is not supported', 3, 1],
    ['1e', 'malformed number', 1, 2],
    ['1.2.3 > 0', 'malformed number', 1, 5],
    ['12abc', 'malformed number', 1, 5],
    ['foo(x) > 0', "unknown function 'foo'", 1, 3],
    ['x.size > 0', "only '.shape[i]' is supported", 3, 4],
    ['x.shape[1.5] > 0', 'the shape index must be an integer literal', 9, 3],
    ['x.shape[i] > 0', 'the shape index must be an integer literal', 9, 1],
    ['x.shape[1', "expected ']' to close the shape index", 10, 0],
    ['x.shape(1)', "expected '[' after '.shape'", 8, 1],
    ['x.shape[99999999999999999999]', 'the shape index is too large', 9, 20],
    ['len(x).shape[0]', "'.shape[i]' applies only to a tensor name", 7, 1],
    ['x[0] > 1', 'indexing is not supported', 2, 1],
    ['len(x y)', "expected ',' or ')' in the arguments of len()", 7, 1],
    ['and', "expected a value, found 'and'", 1, 3],
    ['a and or b', "expected a value, found 'or'", 7, 2],
    ['not', 'expected a value, found the end', 4, 0],
    ['x > "a"', "unexpected '\"'", 5, 1],
    ['true(x)', "unexpected '(' after 'true'", 5, 1],
  ])('%j', (src, message, column, length) => {
    const r = parseExpression(src);
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.error.message).toContain(message);
    expect([r.error.column, r.error.length]).toEqual([column, length]);
  });

  it('reports the first error in source order', () => {
    const r = parseExpression('foo(x) == "s"');
    expect(r.ok ? null : r.error).toMatchObject({
      column: 1,
      message: expect.stringContaining("unknown function 'foo'"),
    });
  });

  it(`accepts ${MAX_NESTING} levels of parentheses and rejects one more`, () => {
    const ok = `${'('.repeat(MAX_NESTING)}x${')'.repeat(MAX_NESTING)}`;
    expect(parseExpression(ok).ok).toBe(true);
    const r = parseExpression(`(${ok})`);
    expect(r.ok ? null : r.error).toMatchObject({
      column: MAX_NESTING + 1,
      length: 1,
      message: expect.stringContaining('nested too deeply'),
    });
  });

  it('rejects long flat chains beyond the tree depth limit with a clear message', () => {
    expect(parseExpression(Array(MAX_AST_DEPTH).fill('a').join(' + ')).ok).toBe(true);
    const r = parseExpression(
      Array(MAX_AST_DEPTH + 2)
        .fill('a')
        .join(' + '),
    );
    expect(r.ok ? null : r.error.message).toContain('too complex');
  });
});
