import {
  EXPR_FUNCTIONS,
  KEYWORDS,
  children,
  type CompareOp,
  type Expr,
  type ExprError,
  type ExprFunction,
  type RefExpr,
} from './ast.ts';
import { tokenize, type Token } from './lexer.ts';

/** Deepest nesting of parentheses, calls and unary operators the parser follows. */
export const MAX_NESTING = 64;
/** Deepest syntax tree accepted (bounds recursion in the checker, evaluator and printers). */
export const MAX_AST_DEPTH = 256;

const COMPARE_OPS: ReadonlySet<string> = new Set(['==', '!=', '<', '<=', '>', '>=']);

class ParseError extends Error {
  constructor(readonly error: ExprError) {
    super(error.message);
  }
}

/** Quotes user text for a message, shortened so hostile input cannot flood it. */
export function quote(text: string): string {
  return `'${text.length > 32 ? `${text.slice(0, 29)}…` : text}'`;
}

function describe(t: Token): string {
  return t.type === 'eof' ? 'the end of the expression' : quote(t.text);
}

/** Recursive-descent parser over a token list; one instance per call. */
class Parser {
  private pos = 0;
  private nesting = 0;
  private readonly depth = new WeakMap<Expr, number>();

  constructor(private readonly tokens: Token[]) {}

  /** The current token; reaching a lexical error fails the parse, so errors come in source order. */
  private peek(): Token {
    const t = this.tokens[this.pos]!;
    if (t.error !== undefined) throw new ParseError(t.error);
    return t;
  }

  private next(): Token {
    const t = this.peek();
    if (t.type !== 'eof') this.pos++;
    return t;
  }

  private isOp(text: string): boolean {
    const t = this.peek();
    return t.type === 'op' && t.text === text;
  }

  private isWord(word: string): boolean {
    const t = this.peek();
    return t.type === 'ident' && t.text === word;
  }

  private fail(message: string, t: Token = this.peek()): never {
    throw new ParseError({ message, column: t.start + 1, length: t.end - t.start });
  }

  private expectOp(text: string, context: string): Token {
    if (!this.isOp(text)) this.fail(`expected '${text}' ${context}, found ${describe(this.peek())}`);
    return this.next();
  }

  /** Registers a node's depth; rejects trees too deep to walk safely. */
  private node<E extends Expr>(e: E): E {
    let d = 0;
    for (const c of children(e)) d = Math.max(d, this.depth.get(c) ?? 1);
    if (d + 1 > MAX_AST_DEPTH) {
      throw new ParseError({
        message: `expression is too complex (more than ${MAX_AST_DEPTH} nested operations)`,
        column: e.start + 1,
        length: e.end - e.start,
      });
    }
    this.depth.set(e, d + 1);
    return e;
  }

  /** Runs `f` one nesting level deeper; rejects nesting beyond {@link MAX_NESTING}. */
  private nested<T>(at: Token, f: () => T): T {
    if (this.nesting >= MAX_NESTING)
      this.fail(`expression is nested too deeply (the limit is ${MAX_NESTING} levels)`, at);
    this.nesting++;
    try {
      return f();
    } finally {
      this.nesting--;
    }
  }

  parseAll(): Expr {
    if (this.peek().type === 'eof') this.fail('the expression is empty');
    const e = this.parseOr();
    const t = this.peek();
    if (t.type !== 'eof') {
      const extra =
        t.type === 'op' && t.text === ')' ? "unmatched ')'" : `unexpected ${describe(t)} after a complete expression`;
      this.fail(extra, t);
    }
    return e;
  }

  private parseLogical(op: 'and' | 'or', operand: () => Expr): Expr {
    let left = operand();
    while (this.isWord(op)) {
      const opTok = this.next();
      const right = operand();
      left = this.node({ type: 'logical', op, left, right, opStart: opTok.start, start: left.start, end: right.end });
    }
    return left;
  }

  private parseOr(): Expr {
    return this.parseLogical('or', () => this.parseAnd());
  }

  private parseAnd(): Expr {
    return this.parseLogical('and', () => this.parseNot());
  }

  private parseNot(): Expr {
    if (!this.isWord('not')) return this.parseCompare();
    const opTok = this.next();
    const operand = this.nested(opTok, () => this.parseNot());
    return this.node({ type: 'unary', op: 'not', operand, start: opTok.start, end: operand.end });
  }

  private parseCompare(): Expr {
    const left = this.parseAdd();
    const t = this.peek();
    if (t.type !== 'op' || !COMPARE_OPS.has(t.text)) return left;
    this.next();
    const right = this.parseAdd();
    const again = this.peek();
    if (again.type === 'op' && COMPARE_OPS.has(again.text)) {
      this.fail(`comparisons cannot be chained; write 'a ${t.text} b and b ${again.text} c'`, again);
    }
    return this.node({
      type: 'compare',
      op: t.text as CompareOp,
      left,
      right,
      opStart: t.start,
      start: left.start,
      end: right.end,
    });
  }

  private parseAdd(): Expr {
    let left = this.parseMul();
    while (this.isOp('+') || this.isOp('-')) {
      const opTok = this.next();
      const right = this.parseMul();
      const op = opTok.text as '+' | '-';
      left = this.node({ type: 'binary', op, left, right, opStart: opTok.start, start: left.start, end: right.end });
    }
    return left;
  }

  private parseMul(): Expr {
    let left = this.parseUnary();
    while (this.isOp('*') || this.isOp('/')) {
      const opTok = this.next();
      const right = this.parseUnary();
      const op = opTok.text as '*' | '/';
      left = this.node({ type: 'binary', op, left, right, opStart: opTok.start, start: left.start, end: right.end });
    }
    return left;
  }

  private parseUnary(): Expr {
    if (!this.isOp('-')) return this.parsePostfix();
    const opTok = this.next();
    const operand = this.nested(opTok, () => this.parseUnary());
    return this.node({ type: 'unary', op: '-', operand, start: opTok.start, end: operand.end });
  }

  private parsePostfix(): Expr {
    const e = this.parsePrimary();
    if (this.isOp('.')) {
      if (e.type !== 'ref') this.fail("'.shape[i]' applies only to a tensor name");
      return this.parseShape(e);
    }
    if (this.isOp('[')) this.fail('indexing is not supported; use x.shape[i], or max(x), min(x), …');
    if (this.isOp('(')) this.fail(`unexpected '(' after ${quote(this.tokens[this.pos - 1]!.text)}`);
    return e;
  }

  private parseShape(tensor: RefExpr): Expr {
    this.next();
    const attr = this.peek();
    if (attr.type === 'ident' && attr.text !== 'shape' && this.tokens[this.pos + 1]?.text === '(') {
      const name = `${tensor.name}.${attr.text}`;
      this.fail(`unknown function ${quote(name)}; the functions are ${EXPR_FUNCTIONS.join(', ')}`, {
        ...attr,
        start: tensor.start,
      });
    }
    if (attr.type !== 'ident' || attr.text !== 'shape') this.fail("only '.shape[i]' is supported after a tensor name");
    this.next();
    this.expectOp('[', "after '.shape'");
    const sign = this.isOp('-') ? this.next() : undefined;
    const num = this.peek();
    if (num.type !== 'number' || !/^[0-9]+$/.test(num.text))
      this.fail('the shape index must be an integer literal, e.g. x.shape[0]');
    const magnitude = Number(num.text);
    if (!Number.isSafeInteger(magnitude)) this.fail('the shape index is too large', num);
    this.next();
    const close = this.expectOp(']', 'to close the shape index');
    const index = sign ? -magnitude : magnitude;
    const indexStart = sign ? sign.start : num.start;
    return this.node({
      type: 'shape',
      tensor,
      index,
      indexStart,
      indexEnd: num.end,
      start: tensor.start,
      end: close.end,
    });
  }

  private parsePrimary(): Expr {
    const t = this.peek();
    if (t.type === 'number') {
      this.next();
      return this.node({ type: 'number', value: Number(t.text), start: t.start, end: t.end });
    }
    if (t.type === 'op' && t.text === '(') return this.parseGroup(t);
    if (t.type !== 'ident') this.fail(`expected a value, found ${describe(t)}`);
    if (t.text === 'true' || t.text === 'false') {
      this.next();
      return this.node({ type: 'bool', value: t.text === 'true', start: t.start, end: t.end });
    }
    if (KEYWORDS.has(t.text)) this.fail(`expected a value, found ${quote(t.text)}`);
    this.next();
    if (this.isOp('(')) return this.parseCall(t);
    return this.node({ type: 'ref', name: t.text, start: t.start, end: t.end });
  }

  private parseGroup(open: Token): Expr {
    this.next();
    const inner = this.nested(open, () => this.parseOr());
    if (!this.isOp(')'))
      this.fail(`expected ')' to close the '(' at column ${open.start + 1}, found ${describe(this.peek())}`);
    this.next();
    return inner;
  }

  private parseCall(name: Token): Expr {
    if (!(EXPR_FUNCTIONS as readonly string[]).includes(name.text)) {
      this.fail(`unknown function ${quote(name.text)}; the functions are ${EXPR_FUNCTIONS.join(', ')}`, name);
    }
    const open = this.next();
    const args = this.nested(open, () => this.parseArgs(name));
    const close = this.next();
    return this.node({ type: 'call', fn: name.text as ExprFunction, args, start: name.start, end: close.end });
  }

  private parseArgs(name: Token): Expr[] {
    const args: Expr[] = [];
    if (this.isOp(')')) return args;
    for (;;) {
      args.push(this.parseOr());
      if (this.isOp(')')) return args;
      this.expectOp(',', `or ')' in the arguments of ${name.text}()`);
    }
  }
}

/**
 * Parses a condition expression. Never throws: syntax errors come back with a 1-based column.
 * @example
 * parseExpression('len(boxes) == 0') // { ok: true, ast: { type: 'compare', op: '==', … } }
 * parseExpression('a < b < c')       // { ok: false, error: { message: 'comparisons cannot be chained; …', column: 7, length: 1 } }
 */
export function parseExpression(src: string): { ok: true; ast: Expr } | { ok: false; error: ExprError } {
  try {
    return { ok: true, ast: new Parser(tokenize(src)).parseAll() };
  } catch (err) {
    if (err instanceof ParseError) return { ok: false, error: err.error };
    throw err;
  }
}
