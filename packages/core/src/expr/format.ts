import { PREC, precedence, type Expr } from './ast.ts';

/** Prints a number so that the lexer reads back the same value (`Infinity` as `1e999`). */
export function formatNumber(value: number): string {
  if (value === Infinity) return '1e999';
  if (!Number.isFinite(value)) throw new Error(`cannot print ${value} as an expression literal`);
  return String(value);
}

function wrap(e: Expr, min: number): string {
  const text = formatExpression(e);
  return precedence(e) < min ? `(${text})` : text;
}

/**
 * Prints an expression in canonical form, with parentheses only where precedence needs them.
 * `parseExpression(formatExpression(ast))` gives back `ast` (offsets aside).
 * @example formatExpression(parse('(len(x)) == 0')) // 'len(x) == 0'
 */
export function formatExpression(ast: Expr): string {
  switch (ast.type) {
    case 'number':
      return formatNumber(ast.value);
    case 'bool':
      return ast.value ? 'true' : 'false';
    case 'ref':
      return ast.name;
    case 'shape':
      return `${ast.tensor.name}.shape[${ast.index}]`;
    case 'call':
      return `${ast.fn}(${ast.args.map((a) => formatExpression(a)).join(', ')})`;
    case 'unary':
      return ast.op === 'not' ? `not ${wrap(ast.operand, PREC.not)}` : `-${wrap(ast.operand, PREC.neg)}`;
    case 'compare':
      // Both sides bind tighter than a comparison: comparisons do not chain.
      return `${wrap(ast.left, PREC.add)} ${ast.op} ${wrap(ast.right, PREC.add)}`;
    case 'binary':
    case 'logical': {
      const p = precedence(ast);
      return `${wrap(ast.left, p)} ${ast.op} ${wrap(ast.right, p + 1)}`;
    }
  }
}
