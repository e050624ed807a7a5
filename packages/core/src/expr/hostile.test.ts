import { describe, expect, it } from 'vitest';
import { checkExpression } from './check.ts';
import { evaluateExpression } from './evaluate.ts';
import { MAX_EXPRESSION_LENGTH } from './lexer.ts';
import { MAX_NESTING, parseExpression } from './parser.ts';
import { expressionToPython } from './python.ts';

function error(src: string) {
  const r = parseExpression(src);
  if (r.ok) throw new Error(`expected ${JSON.stringify(src.slice(0, 40))} to be rejected`);
  return r.error;
}

describe('hostile input', () => {
  it.each([
    ['__import__("os").system("rm -rf /")', "unknown function '__import__'", 1, 10],
    ['os.system("id")', "unknown function 'os.system'", 1, 9],
    ['eval("1") == 1', "unknown function 'eval'", 1, 4],
    ['exec(x)', "unknown function 'exec'", 1, 4],
    ['open(x)', "unknown function 'open'", 1, 4],
    ['x.__class__.__bases__', "only '.shape[i]' is supported", 3, 9],
    ['lambda: 1', "unexpected ':'", 7, 1],
    ['x if y else z', "unexpected 'if' after a complete expression", 3, 2],
    ["'a' == x", "unexpected '''", 1, 1],
    ['[x for x in y]', 'expected a value', 1, 1],
    ['x; import os', "unexpected ';'", 2, 1],
    ['len(x) == 0 # comment', "unexpected '#'", 13, 1],
    ['größe > 1', "unexpected 'ö' (U+00F6)", 3, 1],
    ['len(x) ≥ 0', "unexpected '≥' (U+2265)", 8, 1],
    ['x > 1 \u{1F600}', "unexpected '\u{1F600}' (U+1F600)", 7, 2],
    ['len(x)\u0000 == 0', 'unexpected control character U+0000', 7, 1],
    ['len(x)\u001b[31m', 'unexpected control character U+001B', 7, 1],
    ['len(x) ==\u00a00', 'unexpected space character U+00A0', 10, 1],
    ['len(x)\u200b== 0', "unexpected '\u200b' (U+200B)", 7, 1],
    ['a\u2028== b', 'unexpected space character U+2028', 2, 1],
    ['\ud800 > 1', "unexpected '\ud800' (U+D800)", 1, 1],
  ])('%j', (src, message, column, length) => {
    const e = error(src);
    expect(e.message).toContain(message);
    expect([e.column, e.length]).toEqual([column, length]);
  });

  it('rejects input beyond the length limit without scanning it', () => {
    const e = error(`len(x) == ${'1'.repeat(MAX_EXPRESSION_LENGTH)}`);
    expect(e.message).toMatch(/too long \(\d+ characters; the limit is 10000\)/);
    expect(e.column).toBe(MAX_EXPRESSION_LENGTH + 1);
  });

  it('parses input just under the length limit', () => {
    const src = `${'a + '.repeat(200)}a > ${'0'.repeat(MAX_EXPRESSION_LENGTH - 806)}`;
    expect(src.length).toBeLessThanOrEqual(MAX_EXPRESSION_LENGTH);
    expect(parseExpression(src).ok).toBe(true);
  });

  it.each([
    ['parentheses', (n: number) => `${'('.repeat(n)}x${')'.repeat(n)}`],
    ['unary minus', (n: number) => `${'-'.repeat(n)}x > 0`],
    ['not', (n: number) => `${'not '.repeat(n)}x`],
    ['calls', (n: number) => `${'len('.repeat(n)}x${')'.repeat(n)}`],
  ])('stops deep %s with a clear error instead of overflowing the stack', (_, make) => {
    expect(error(make(1999)).message).toContain(`nested too deeply (the limit is ${MAX_NESTING} levels)`);
  });

  it('keeps messages short when echoing a huge identifier', () => {
    const e = error(`${'f'.repeat(5000)}(x)`);
    expect(e.message.length).toBeLessThan(150);
    expect(e.length).toBe(5000);
  });

  it('treats Object.prototype names as ordinary, unknown ports', () => {
    const r = parseExpression('len(constructor) == 0 and __proto__.shape[0] == 1 and toString');
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    expect(checkExpression(r.ast, {}).map((e) => e.message)).toEqual([
      "unknown port 'constructor'; this condition has no ports",
      "unknown port '__proto__'; this condition has no ports",
      "unknown port 'toString'; this condition has no ports",
    ]);
    expect(() => evaluateExpression(r.ast, {})).toThrow("no tensor for port 'constructor'");
  });

  it('emits nothing but mapped identifiers, numbers and fixed code for parsed input', () => {
    const r = parseExpression('len(import) == 1e999 or max(x_1) / 0 >= .5');
    expect(r.ok && expressionToPython(r.ast, (p) => `t['${p}']`)).toBe(
      "bool(np.float64(len(t['import'])) == np.float64(np.inf) or " +
        "np.float64(np.max(t['x_1']) + 0 if t['x_1'].size else -np.inf) / np.float64(0.0) >= np.float64(0.5))",
    );
  });
});
