/**
 * The condition expression language's syntax tree.
 *
 * Every node carries `start`/`end`: 0-based UTF-16 offsets into the source, `end` exclusive.
 * Parentheses leave no node behind: printers re-insert them from {@link precedence}.
 */

/** Functions of one tensor argument. `len`, `size` accept BYTES tensors; the rest need numbers or booleans. */
export const EXPR_FUNCTIONS = ['len', 'size', 'max', 'min', 'sum', 'mean', 'any', 'all'] as const;
export type ExprFunction = (typeof EXPR_FUNCTIONS)[number];

export type ArithmeticOp = '+' | '-' | '*' | '/';
export type CompareOp = '==' | '!=' | '<' | '<=' | '>' | '>=';
export type LogicalOp = 'and' | 'or';

interface Span {
  start: number;
  end: number;
}

/** A numeric literal: `0`, `0.5`, `1e-3`. Always non-negative (`-1` parses as unary minus). */
export interface NumberExpr extends Span {
  type: 'number';
  value: number;
}
/** `true` or `false`. */
export interface BoolExpr extends Span {
  type: 'bool';
  value: boolean;
}
/** A tensor named by its port. As a value it means the tensor's single element. */
export interface RefExpr extends Span {
  type: 'ref';
  name: string;
}
/** `x.shape[i]`; `index` may be negative (counts from the end, as in Python). */
export interface ShapeExpr extends Span {
  type: 'shape';
  tensor: RefExpr;
  index: number;
  /** Offsets of the index literal (sign included), for error reporting. */
  indexStart: number;
  indexEnd: number;
}
/** `fn(args…)`. The checker requires exactly one tensor name as argument. */
export interface CallExpr extends Span {
  type: 'call';
  fn: ExprFunction;
  args: Expr[];
}
/** `-x` or `not x`. */
export interface UnaryExpr extends Span {
  type: 'unary';
  op: '-' | 'not';
  operand: Expr;
}
/** `a + b`, `a - b`, `a * b`, `a / b`. */
export interface BinaryExpr extends Span {
  type: 'binary';
  op: ArithmeticOp;
  left: Expr;
  right: Expr;
  opStart: number;
}
/** `a < b` etc. Non-associative: `a < b < c` does not parse. */
export interface CompareExpr extends Span {
  type: 'compare';
  op: CompareOp;
  left: Expr;
  right: Expr;
  opStart: number;
}
/** `a and b`, `a or b`; both short-circuit. */
export interface LogicalExpr extends Span {
  type: 'logical';
  op: LogicalOp;
  left: Expr;
  right: Expr;
  opStart: number;
}

/** Any expression node, discriminated on `type`. */
export type Expr =
  NumberExpr | BoolExpr | RefExpr | ShapeExpr | CallExpr | UnaryExpr | BinaryExpr | CompareExpr | LogicalExpr;

/** A parse or type error. `column` is 1-based (UTF-16 units); `length` 0 means "at the end of the input". */
export interface ExprError {
  message: string;
  column: number;
  length: number;
}

/** Identifiers (port names): `[A-Za-z_][A-Za-z0-9_]*`. */
export const IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** Words that cannot name a port. */
export const KEYWORDS: ReadonlySet<string> = new Set(['and', 'or', 'not', 'true', 'false']);

/** Binding strength, Python's order: or < and < not < comparison < + - < * / < unary minus < atom. */
export const PREC = { or: 1, and: 2, not: 3, compare: 4, add: 5, mul: 6, neg: 7, atom: 8 } as const;

/** How tightly a node binds, used to decide where printers need parentheses. */
export function precedence(e: Expr): number {
  switch (e.type) {
    case 'logical':
      return e.op === 'or' ? PREC.or : PREC.and;
    case 'unary':
      return e.op === 'not' ? PREC.not : PREC.neg;
    case 'compare':
      return PREC.compare;
    case 'binary':
      return e.op === '+' || e.op === '-' ? PREC.add : PREC.mul;
    default:
      return PREC.atom;
  }
}

/** Direct children of a node, left to right. */
export function children(e: Expr): Expr[] {
  switch (e.type) {
    case 'shape':
      return [e.tensor];
    case 'call':
      return e.args;
    case 'unary':
      return [e.operand];
    case 'binary':
    case 'compare':
    case 'logical':
      return [e.left, e.right];
    default:
      return [];
  }
}
