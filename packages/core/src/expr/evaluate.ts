import { elementCount, type Tensor } from '../tensor/tensor.ts';
import type { CallExpr, CompareOp, Expr, RefExpr, ShapeExpr } from './ast.ts';
import { quote } from './parser.ts';
import { tensorNumbers } from './values.ts';

type Value = boolean | number;

function lookup(ref: RefExpr, tensors: Record<string, Tensor>): Tensor {
  // hasOwn: a port named `constructor` or `__proto__` must not reach Object.prototype.
  const t = Object.hasOwn(tensors, ref.name) ? tensors[ref.name] : undefined;
  if (t === undefined) throw new Error(`no tensor for port ${quote(ref.name)}`);
  if (elementCount(t.shape) !== t.data.length) {
    throw new Error(`tensor ${quote(ref.name)} has ${t.data.length} elements but shape [${t.shape.join(', ')}]`);
  }
  return t;
}

function refValue(ref: RefExpr, tensors: Record<string, Tensor>): Value {
  const t = lookup(ref, tensors);
  if (t.datatype === 'BYTES')
    throw new Error(`BYTES tensor ${quote(ref.name)} has no value; use len(), size() or .shape[i]`);
  if (t.data.length !== 1) {
    throw new Error(`${quote(ref.name)} has shape [${t.shape.join(', ')}], not one element; use e.g. max(${ref.name})`);
  }
  const v = tensorNumbers(t)[0]!;
  return t.datatype === 'BOOL' ? v !== 0 : v;
}

function shapeValue(e: ShapeExpr, tensors: Record<string, Tensor>): number {
  const t = lookup(e.tensor, tensors);
  const rank = t.shape.length;
  const i = e.index < 0 ? rank + e.index : e.index;
  if (i < 0 || i >= rank)
    throw new Error(`${e.tensor.name}.shape[${e.index}] is out of range: ${quote(e.tensor.name)} has rank ${rank}`);
  return t.shape[i]!;
}

/** Sequential left-to-right float64 sum: the emitted Python uses `np.cumsum(…, dtype=np.float64)[-1]` to match. */
function sequentialSum(xs: number[]): number {
  if (xs.length === 0) return 0;
  let s = xs[0]!; // not 0 + xs[0]: the sum of [-0.0] is -0.0, as in numpy
  for (let i = 1; i < xs.length; i++) s += xs[i]!;
  return s;
}

function extreme(xs: number[], pick: (a: number, b: number) => boolean, empty: number): number {
  if (xs.length === 0) return empty;
  let m = xs[0]!;
  for (const x of xs) {
    if (Number.isNaN(x)) return NaN; // numpy propagates NaN through max/min
    if (pick(x, m)) m = x;
  }
  return m + 0; // -0 → +0: numpy's choice among equal zeros depends on the dtype, so both sides normalise
}

function callValue(e: CallExpr, tensors: Record<string, Tensor>): Value {
  const arg = e.args[0];
  if (e.args.length !== 1 || arg?.type !== 'ref') throw new Error(`${e.fn}() takes exactly one tensor name`);
  const t = lookup(arg, tensors);
  if (e.fn === 'size') return t.data.length;
  if (e.fn === 'len') {
    const first = t.shape[0];
    if (first === undefined) throw new Error(`len() of scalar tensor ${quote(arg.name)}`);
    return first;
  }
  if (t.datatype === 'BYTES') throw new Error(`${e.fn}() cannot read BYTES tensor ${quote(arg.name)}`);
  const xs = tensorNumbers(t);
  switch (e.fn) {
    case 'sum':
      return sequentialSum(xs);
    case 'mean':
      return xs.length === 0 ? NaN : sequentialSum(xs) / xs.length;
    case 'max':
      return extreme(xs, (a, b) => a > b, -Infinity);
    case 'min':
      return extreme(xs, (a, b) => a < b, Infinity);
    case 'any':
      return xs.some((x) => x !== 0);
    case 'all':
      return xs.every((x) => x !== 0);
  }
}

function num(v: Value, what: string): number {
  if (typeof v !== 'number') throw new Error(`${what} needs numbers, got ${v}`);
  return v;
}

function bool(v: Value, what: string): boolean {
  if (typeof v !== 'boolean') throw new Error(`${what} needs true/false, got ${v}`);
  return v;
}

function compare(op: CompareOp, a: Value, b: Value): boolean {
  if (op === '==' || op === '!=') {
    if (typeof a !== typeof b) throw new Error(`'${op}' cannot compare a boolean with a number`);
    return (a === b) === (op === '==');
  }
  const x = num(a, `'${op}'`);
  const y = num(b, `'${op}'`);
  switch (op) {
    case '<':
      return x < y;
    case '<=':
      return x <= y;
    case '>':
      return x > y;
    case '>=':
      return x >= y;
  }
}

function arithmetic(op: '+' | '-' | '*' | '/', x: number, y: number): number {
  switch (op) {
    case '+':
      return x + y;
    case '-':
      return x - y;
    case '*':
      return x * y;
    case '/':
      return x / y; // IEEE: 1/0 = Infinity, 0/0 = NaN, as numpy float64 division
  }
}

/**
 * Evaluates an expression over tensors keyed by port name. Numbers are float64 throughout; `and`/`or`
 * short-circuit; a bare tensor name means its single element; max/min of an empty tensor are -inf/+inf,
 * sum is 0 and mean NaN; sums add left to right; a zero max/min is +0. Throws an `Error` with a readable
 * message for runtime failures (missing tensor,
 * `len()` of a scalar, shape index out of range, a value that is not one element, mismatched types).
 * @example evaluateExpression(parse('max(scores) < 0.5'), { scores: tensorFromJson('FP32', [2], [0.1, 0.7]) }) // false
 */
export function evaluateExpression(ast: Expr, tensors: Record<string, Tensor>): boolean | number {
  switch (ast.type) {
    case 'number':
    case 'bool':
      return ast.value;
    case 'ref':
      return refValue(ast, tensors);
    case 'shape':
      return shapeValue(ast, tensors);
    case 'call':
      return callValue(ast, tensors);
    case 'unary': {
      const v = evaluateExpression(ast.operand, tensors);
      return ast.op === 'not' ? !bool(v, "'not'") : -num(v, "unary '-'");
    }
    case 'logical': {
      const left = bool(evaluateExpression(ast.left, tensors), `'${ast.op}'`);
      if (ast.op === 'and' ? !left : left) return left;
      return bool(evaluateExpression(ast.right, tensors), `'${ast.op}'`);
    }
    case 'compare':
      return compare(ast.op, evaluateExpression(ast.left, tensors), evaluateExpression(ast.right, tensors));
    case 'binary': {
      const what = `'${ast.op}'`;
      return arithmetic(
        ast.op,
        num(evaluateExpression(ast.left, tensors), what),
        num(evaluateExpression(ast.right, tensors), what),
      );
    }
  }
}
