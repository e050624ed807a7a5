import { EXPR_FUNCTIONS, IDENTIFIER, PREC, precedence, type CallExpr, type Expr } from './ast.ts';

/**
 * A float literal for Python, read back as the same double: every numeric value in the emitted code is an
 * `np.float64`, so `/` by zero gives inf/nan (as in the evaluator) instead of raising ZeroDivisionError.
 */
export function pythonNumber(value: number): string {
  if (Number.isNaN(value)) return 'np.float64(np.nan)';
  if (value === Infinity) return 'np.float64(np.inf)';
  if (value === -Infinity) return 'np.float64(-np.inf)';
  if (Object.is(value, -0)) return 'np.float64(-0.0)';
  const s = String(value); // shortest round-trip form: `5`, `0.1`, `1e+21`, `1.5e-7` are all valid Python
  return `np.float64(${/[.e]/.test(s) ? s : `${s}.0`})`;
}

function tensorName(e: Expr, fn: string): string {
  if (e.type !== 'ref' || !IDENTIFIER.test(e.name)) throw new Error(`${fn}() takes exactly one tensor name`);
  return e.name;
}

function pythonCall(e: CallExpr, tensorVar: (port: string) => string): string {
  if (!(EXPR_FUNCTIONS as readonly string[]).includes(e.fn)) throw new Error(`unknown function '${String(e.fn)}'`);
  if (e.args.length !== 1 || e.args[0] === undefined) throw new Error(`${e.fn}() takes exactly one tensor name`);
  const x = tensorVar(tensorName(e.args[0], e.fn));
  switch (e.fn) {
    case 'len':
      return `np.float64(len(${x}))`;
    case 'size':
      return `np.float64(${x}.size)`;
    // `+ 0` turns -0.0 into 0.0: which zero numpy's max/min return among equal zeros varies with the dtype.
    case 'max':
      return `np.float64(np.max(${x}) + 0 if ${x}.size else -np.inf)`;
    case 'min':
      return `np.float64(np.min(${x}) + 0 if ${x}.size else np.inf)`;
    // cumsum adds strictly left to right (np.sum is pairwise), matching the evaluator bit for bit.
    case 'sum':
      return `np.float64(np.cumsum(${x}, dtype=np.float64)[-1] if ${x}.size else 0.0)`;
    case 'mean':
      return `np.float64(np.cumsum(${x}, dtype=np.float64)[-1] / ${x}.size if ${x}.size else np.nan)`;
    case 'any':
      return `bool(np.any(${x}))`;
    case 'all':
      return `bool(np.all(${x}))`;
  }
}

function emit(e: Expr, tensorVar: (port: string) => string): string {
  const sub = (c: Expr, min: number): string => {
    const code = emit(c, tensorVar);
    return precedence(c) < min ? `(${code})` : code;
  };
  switch (e.type) {
    case 'number':
      return pythonNumber(e.value);
    case 'bool':
      return e.value ? 'True' : 'False';
    case 'ref': {
      const x = tensorVar(tensorName(e, 'a value'));
      return `(${x}.item() if ${x}.dtype == np.bool_ else np.float64(${x}.item()))`;
    }
    case 'shape': {
      if (!Number.isSafeInteger(e.index)) throw new Error('the shape index must be an integer');
      return `np.float64(${tensorVar(tensorName(e.tensor, 'shape'))}.shape[${e.index}])`;
    }
    case 'call':
      return pythonCall(e, tensorVar);
    case 'unary':
      if (e.op === 'not') return `not ${sub(e.operand, PREC.not)}`;
      if (e.op === '-') return `-${sub(e.operand, PREC.neg)}`;
      break;
    case 'compare':
      if (['==', '!=', '<', '<=', '>', '>='].includes(e.op))
        return `${sub(e.left, PREC.add)} ${e.op} ${sub(e.right, PREC.add)}`;
      break;
    case 'binary':
    case 'logical':
      if (['+', '-', '*', '/', 'and', 'or'].includes(e.op)) {
        const p = precedence(e);
        return `${sub(e.left, p)} ${e.op} ${sub(e.right, p + 1)}`;
      }
      break;
  }
  throw new Error(`cannot emit expression node ${JSON.stringify((e as { type: unknown }).type)}`);
}

/**
 * A Python expression over numpy arrays equivalent to {@link evaluateExpression}, wrapped in `bool(...)`.
 * `tensorVar(port)` gives the Python variable (a name or subscript) holding each port's `np.ndarray`; it must
 * not collide with Python keywords or `np`. Needs `import numpy as np`. Only identifiers checked against
 * `[A-Za-z_][A-Za-z0-9_]*` (mapped through `tensorVar`), numbers and fixed snippets reach the output, even for
 * hand-built trees: anything else throws. Division by zero gives inf/nan with a numpy RuntimeWarning.
 * @example expressionToPython(parse('len(boxes) == 0'), (p) => `t_${p}`) // 'bool(np.float64(len(t_boxes)) == np.float64(0.0))'
 */
export function expressionToPython(ast: Expr, tensorVar: (port: string) => string): string {
  return `bool(${emit(ast, tensorVar)})`;
}
