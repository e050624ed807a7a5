import { describe, expect, it } from 'vitest';
import type { Expr, ExprFunction } from './ast.ts';
import { parseExpression } from './parser.ts';
import { expressionToPython, pythonNumber } from './python.ts';

// The Python text expressionToPython prints; python.numpy.test.ts runs it under numpy against evaluateExpression.

describe('expressionToPython output', () => {
  it('wraps the whole expression in bool() and parenthesises only where precedence needs it', () => {
    const r = parseExpression('not (len(x) > 0 and a) or -(b - 1) / 2 == 3');
    expect(r.ok && expressionToPython(r.ast, (p) => `t_${p}`)).toBe(
      'bool(not (np.float64(len(t_x)) > np.float64(0.0) and (t_a.item() if t_a.dtype == np.bool_ else np.float64(t_a.item())))' +
        ' or -((t_b.item() if t_b.dtype == np.bool_ else np.float64(t_b.item())) - np.float64(1.0)) / np.float64(2.0) == np.float64(3.0))',
    );
  });

  it('prints numbers as float literals Python reads back exactly', () => {
    expect([0, 5, 0.1, 1e21, 1.5e-7, 5e-324, -0, Infinity, -Infinity, NaN].map(pythonNumber)).toEqual([
      'np.float64(0.0)',
      'np.float64(5.0)',
      'np.float64(0.1)',
      'np.float64(1e+21)',
      'np.float64(1.5e-7)',
      'np.float64(5e-324)',
      'np.float64(-0.0)',
      'np.float64(np.inf)',
      'np.float64(-np.inf)',
      'np.float64(np.nan)',
    ]);
  });

  it('refuses hand-built trees that would smuggle text into the Python', () => {
    const evil: Expr[] = [
      { type: 'ref', name: 'x) or __import__("os").system("id") or (x', start: 0, end: 0 },
      {
        type: 'call',
        fn: 'eval' as ExprFunction,
        args: [{ type: 'ref', name: 'x', start: 0, end: 0 }],
        start: 0,
        end: 0,
      },
      { type: 'call', fn: 'len', args: [{ type: 'number', value: 1, start: 0, end: 0 }], start: 0, end: 0 },
      {
        type: 'shape',
        tensor: { type: 'ref', name: 'x', start: 0, end: 0 },
        index: 0.5,
        indexStart: 0,
        indexEnd: 0,
        start: 0,
        end: 0,
      },
      {
        type: 'binary',
        op: '**' as '+',
        left: { type: 'number', value: 1, start: 0, end: 0 },
        right: { type: 'number', value: 1, start: 0, end: 0 },
        opStart: 0,
        start: 0,
        end: 0,
      },
      { type: 'unary', op: '~' as '-', operand: { type: 'number', value: 1, start: 0, end: 0 }, start: 0, end: 0 },
      { type: 'lambda' } as unknown as Expr,
    ];
    for (const e of evil) expect(() => expressionToPython(e, (p) => p)).toThrow();
  });
});
