import type { PortType } from '../tensor/tensor.ts';
import type { CallExpr, Expr, ExprError, RefExpr } from './ast.ts';
import { quote } from './parser.ts';
import { closestName } from './suggest.ts';

/** Static types; `any` stands for "unknown" and for "already reported", so one mistake yields one error. */
type Ty = 'bool' | 'number' | 'any';

const NUMBER_FUNCTIONS: ReadonlySet<string> = new Set(['len', 'size', 'max', 'min', 'sum', 'mean']);

function at(e: { start: number; end: number }, message: string): ExprError {
  return { message, column: e.start + 1, length: e.end - e.start };
}

function tyName(t: Ty): string {
  return t === 'bool' ? 'a boolean' : 'a number';
}

function shapeText(shape: readonly number[]): string {
  return `[${shape.map((d) => (d < 0 ? '-1' : String(d))).join(', ')}]`;
}

/** Type-checks one expression tree against the ports; one instance per call. */
class Checker {
  readonly errors: ExprError[] = [];

  constructor(private readonly ports: Record<string, PortType>) {}

  /** The port's type, or undefined after reporting an unknown name (with a suggestion). */
  private port(ref: RefExpr): PortType | undefined {
    if (Object.hasOwn(this.ports, ref.name)) return this.ports[ref.name];
    const names = Object.keys(this.ports);
    const guess = closestName(ref.name, names);
    const hint =
      guess !== undefined
        ? `; did you mean ${quote(guess)}?`
        : names.length > 0
          ? `; the ports are ${names.slice(0, 8).map(quote).join(', ')}${names.length > 8 ? ', …' : ''}`
          : '; this condition has no ports';
    this.errors.push(at(ref, `unknown port ${quote(ref.name)}${hint}`));
    return undefined;
  }

  private ref(ref: RefExpr): Ty {
    const p = this.port(ref);
    if (p === undefined) return 'any';
    if (p.datatype === 'BYTES') {
      this.errors.push(at(ref, `BYTES tensor ${quote(ref.name)} can only be used in len(), size() or .shape[i]`));
      return 'any';
    }
    if (p.shape !== null) {
      const known = p.shape.filter((d) => d >= 0);
      const product = known.reduce((a, b) => a * b, 1);
      if (product !== 1) {
        this.errors.push(
          at(
            ref,
            `${quote(ref.name)} has shape ${shapeText(p.shape)}, not one element; ` +
              `reduce it first, e.g. max(${ref.name}) or len(${ref.name})`,
          ),
        );
        return 'any';
      }
    }
    return p.datatype === null ? 'any' : p.datatype === 'BOOL' ? 'bool' : 'number';
  }

  private call(e: CallExpr): Ty {
    const result: Ty = NUMBER_FUNCTIONS.has(e.fn) ? 'number' : 'bool';
    const arg = e.args[0];
    if (e.args.length !== 1 || arg === undefined) {
      this.errors.push(
        at(
          { start: e.start, end: e.start + e.fn.length },
          `${e.fn}() takes exactly one tensor name (got ${e.args.length} arguments), e.g. ${e.fn}(x)`,
        ),
      );
      return result;
    }
    if (arg.type !== 'ref') {
      this.errors.push(at(arg, `${e.fn}() takes a tensor name, e.g. ${e.fn}(x), not a computed value`));
      return result;
    }
    const p = this.port(arg);
    if (p === undefined) return result;
    if (e.fn === 'len' && p.shape !== null && p.shape.length === 0) {
      this.errors.push(at(arg, `len() of scalar tensor ${quote(arg.name)} (shape []); use size(${arg.name})`));
    } else if (e.fn !== 'len' && e.fn !== 'size' && p.datatype === 'BYTES') {
      this.errors.push(
        at(arg, `${e.fn}() cannot read BYTES tensor ${quote(arg.name)}; only len(), size() and .shape[i] can`),
      );
    }
    return result;
  }

  private expect(e: Expr, want: 'bool' | 'number', what: string): void {
    const t = this.check(e);
    if (t !== 'any' && t !== want) this.errors.push(at(e, `${what} needs ${tyName(want)}, but this is ${tyName(t)}`));
  }

  check(e: Expr): Ty {
    switch (e.type) {
      case 'number':
        return 'number';
      case 'bool':
        return 'bool';
      case 'ref':
        return this.ref(e);
      case 'call':
        return this.call(e);
      case 'shape': {
        const p = this.port(e.tensor);
        const rank = p?.shape?.length;
        if (rank !== undefined && (e.index >= rank || e.index < -rank)) {
          this.errors.push(
            at(
              { start: e.indexStart, end: e.indexEnd },
              `${e.tensor.name}.shape[${e.index}] is out of range: ${quote(e.tensor.name)} has rank ${rank}`,
            ),
          );
        }
        return 'number';
      }
      case 'unary':
        if (e.op === 'not') this.expect(e.operand, 'bool', "'not'");
        else this.expect(e.operand, 'number', "unary '-'");
        return e.op === 'not' ? 'bool' : 'number';
      case 'logical':
        this.expect(e.left, 'bool', `'${e.op}'`);
        this.expect(e.right, 'bool', `'${e.op}'`);
        return 'bool';
      case 'binary':
        this.expect(e.left, 'number', `'${e.op}'`);
        this.expect(e.right, 'number', `'${e.op}'`);
        return 'number';
      case 'compare':
        return this.compare(e.op, e.left, e.right, e.opStart);
    }
  }

  private compare(op: string, left: Expr, right: Expr, opStart: number): Ty {
    if (op !== '==' && op !== '!=') {
      this.expect(left, 'number', `'${op}'`);
      this.expect(right, 'number', `'${op}'`);
      return 'bool';
    }
    const l = this.check(left);
    const r = this.check(right);
    if (l !== 'any' && r !== 'any' && l !== r) {
      this.errors.push(
        at({ start: opStart, end: opStart + op.length }, `'${op}' compares ${tyName(l)} with ${tyName(r)}`),
      );
    }
    return 'bool';
  }
}

/**
 * Type-checks a parsed expression against the condition's ports. Returns [] when it is well typed and
 * boolean. Reports unknown ports (with the closest name), wrong arity or argument of functions, shape indexes
 * outside a known rank, BYTES tensors outside len/size/shape, booleans compared with numbers, and a
 * non-boolean result — each with the column and length of the offending token.
 * @example checkExpression(parse('max(scroes) < 0.5'), { scores: { datatype: 'FP32', shape: [-1] } })
 * // [{ message: "unknown port 'scroes'; did you mean 'scores'?", column: 5, length: 6 }]
 */
export function checkExpression(ast: Expr, ports: Record<string, PortType>): ExprError[] {
  const checker = new Checker(ports);
  const t = checker.check(ast);
  if (t === 'number') {
    checker.errors.push(at(ast, 'the condition must be true or false, e.g. compare it: len(x) == 0'));
  }
  return checker.errors.sort((a, b) => a.column - b.column);
}
