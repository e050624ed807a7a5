/**
 * Protobuf text-format parser for Triton's ModelConfig, following protoc's `TextFormat::Parser`
 * with default options, as Triton reads `config.pbtxt`. Produces the JSON shape `/v2/models/m/config` prints,
 * without defaults filled in.
 */
import type { ModelConfig } from './modelConfig.ts';
import { PbtxtSyntaxError, tokenize, type PbtxtError, type Token } from './lexer.ts';
import { messageDef, type FieldDef, type FieldType, type MessageDef } from './schema.ts';
import { defaultScalar, readBool, readEnum, readFloat, readInt, setOwn, type ScalarResult } from './values.ts';

export type { PbtxtError } from './lexer.ts';
export type PbtxtResult = { ok: true; config: ModelConfig } | { ok: false; error: PbtxtError };

/** protoc's default recursion limit. */
const MAX_DEPTH = 100;

type Json = Record<string, unknown>;

class Parser {
  private pos = 0;
  constructor(
    private readonly tokens: Token[],
    private readonly lenient: boolean,
  ) {}

  private peek(): Token {
    return this.tokens[this.pos] ?? this.tokens[this.tokens.length - 1]!;
  }
  private next(): Token {
    const t = this.peek();
    if (t.type !== 'eof') this.pos++;
    return t;
  }
  private is(sym: string): boolean {
    const t = this.peek();
    return t.type === 'symbol' && t.text === sym;
  }
  private tryConsume(sym: string): boolean {
    if (!this.is(sym)) return false;
    this.pos++;
    return true;
  }
  fail(message: string, at: Token = this.peek()): never {
    throw new PbtxtSyntaxError({ line: at.line, column: at.column, message });
  }
  private expect(sym: string, what: string): void {
    if (!this.tryConsume(sym)) this.fail(`expected "${sym}" ${what}, found ${show(this.peek())}`);
  }
  private checkDepth(depth: number): void {
    if (depth > MAX_DEPTH) this.fail(`nesting is deeper than ${MAX_DEPTH} levels`);
  }

  /** Parses fields until `closer` (or end of input for the top level). */
  parseMessage(def: MessageDef, closer: string | null, depth: number, opener?: Token): Json {
    this.checkDepth(depth);
    const obj: Json = {};
    const seen = new Set<string>();
    const oneofs = new Map<string, string>();
    for (;;) {
      const t = this.peek();
      if (closer === null && t.type === 'eof') return obj;
      if (closer !== null && this.tryConsume(closer)) return obj;
      if (t.type === 'eof') {
        const where = opener ? ` opened at ${opener.line}:${opener.column}` : '';
        this.fail(`unterminated block: expected "${closer}" to close the block${where}`);
      }
      if (t.type !== 'ident') this.fail(`expected a field name, found ${show(t)}`);
      this.next();
      const field = def.byName.get(t.text);
      if (field) this.parseKnownField(def, field, obj, t, seen, oneofs, depth);
      else if (this.lenient) this.parseUnknownField(obj, t.text, depth);
      else this.fail(`unknown field "${t.text}" in message inference.${def.name}`, t);
      if (!this.tryConsume(',')) this.tryConsume(';');
    }
  }

  private parseKnownField(
    def: MessageDef,
    field: FieldDef,
    obj: Json,
    at: Token,
    seen: Set<string>,
    oneofs: Map<string, string>,
    depth: number,
  ): void {
    const repeated = field.repeated || field.type.kind === 'map';
    if (!repeated) {
      if (seen.has(field.name))
        this.fail(`field "${field.name}" of inference.${def.name} is given twice but is not repeated`, at);
      seen.add(field.name);
    }
    if (field.oneof) {
      const other = oneofs.get(field.oneof);
      if (other !== undefined && other !== field.name) {
        this.fail(
          `fields "${other}" and "${field.name}" are both set, but only one member of oneof "${field.oneof}" may be given`,
          at,
        );
      }
      oneofs.set(field.oneof, field.name);
    }
    const isMessage = field.type.kind === 'message' || field.type.kind === 'map';
    if (isMessage) this.tryConsume(':');
    else this.expect(':', `after field "${field.name}"`);
    if (this.is('[')) {
      if (!repeated) this.fail(`field "${field.name}" is not repeated, so it cannot take a list`);
      const open = this.next();
      if (!(field.name in obj)) setOwn(obj, field.name, field.type.kind === 'map' ? {} : []);
      this.parseList(() => this.addValue(field, obj, depth + 1), open, depth + 1);
      return;
    }
    if (isMessage && !this.is('{') && !this.is('<'))
      this.fail(`expected "{" to start field "${field.name}", found ${show(this.peek())}`);
    this.addValue(field, obj, depth);
  }

  /** Parses `[ v, v, ... ]` after its opening bracket, calling `item` per element. */
  private parseList(item: () => void, open: Token, depth: number): void {
    this.checkDepth(depth);
    if (this.tryConsume(']')) return;
    for (;;) {
      if (this.peek().type === 'eof')
        this.fail(`unterminated list: expected "]" to close the list opened at ${open.line}:${open.column}`);
      item();
      if (this.tryConsume(']')) return;
      this.expect(',', 'or "]" in list');
    }
  }

  /** Reads one value of `field` and stores it (append for repeated, key for maps). */
  private addValue(field: FieldDef, obj: Json, depth: number): void {
    const t = field.type;
    if (t.kind === 'map') {
      const entry = this.parseNested(mapEntryDef(field), depth);
      const map = (obj[field.name] ??= {}) as Json;
      setOwn(
        map,
        String(entry.key ?? defaultScalar(entryField(field, 'key'))),
        entry.value ?? defaultScalar(entryField(field, 'value')),
      );
      return;
    }
    const value = t.kind === 'message' ? this.parseNested(messageDef(t.message), depth) : this.readScalar(field);
    if (field.repeated) {
      if (!(field.name in obj)) setOwn(obj, field.name, []);
      (obj[field.name] as unknown[]).push(value);
    } else setOwn(obj, field.name, value);
  }

  private parseNested(def: MessageDef, depth: number): Json {
    const open = this.peek();
    if (this.tryConsume('{')) return this.parseMessage(def, '}', depth + 1, open);
    if (this.tryConsume('<')) return this.parseMessage(def, '>', depth + 1, open);
    return this.fail(`expected "{" or "<" to start a message, found ${show(open)}`);
  }

  private readScalar(field: FieldDef): number | boolean | string {
    const t: FieldType = field.type;
    if (t.kind === 'scalar' && (t.scalar === 'string' || t.scalar === 'bytes')) return this.readString(field.name);
    const negative = this.tryConsume('-');
    const tok = this.next();
    let r: ScalarResult;
    if (t.kind === 'enum') r = readEnum(t.enum, tok, negative, field.name);
    else if (t.kind !== 'scalar') r = { ok: false, message: `field "${field.name}" expects a message` };
    else if (t.scalar === 'bool')
      r = negative
        ? { ok: false, message: `field "${field.name}" expects true or false, found "-"` }
        : readBool(tok, field.name);
    else if (t.scalar === 'float' || t.scalar === 'double') r = readFloat(tok, negative, field.name);
    else r = readInt(t.scalar, tok, negative, field.name);
    if (!r.ok) this.fail(r.message, tok);
    return r.value;
  }

  /** One or more adjacent string literals, concatenated. */
  private readString(name: string): string {
    const first = this.peek();
    if (first.type !== 'string') this.fail(`field "${name}" expects a quoted string, found ${show(first)}`);
    let s = '';
    while (this.peek().type === 'string') s += this.next().value;
    return s;
  }

  /** Lenient mode: keeps a field the schema does not know as a generic JSON value. */
  private parseUnknownField(obj: Json, name: string, depth: number): void {
    const hadColon = this.tryConsume(':');
    const store = (v: unknown): void => {
      const prev = obj[name];
      if (!Object.prototype.hasOwnProperty.call(obj, name)) setOwn(obj, name, v);
      else if (Array.isArray(prev)) prev.push(v);
      else setOwn(obj, name, [prev, v]);
    };
    if (this.is('[')) {
      const open = this.next();
      const items: unknown[] = [];
      this.parseList(() => items.push(this.readGeneric(depth + 1)), open, depth + 1);
      const prev = obj[name];
      if (!Object.prototype.hasOwnProperty.call(obj, name)) setOwn(obj, name, items);
      else if (Array.isArray(prev)) prev.push(...items);
      else setOwn(obj, name, [prev, ...items]);
      return;
    }
    if (!hadColon && !this.is('{') && !this.is('<'))
      this.fail(`expected ":" or "{" after field "${name}", found ${show(this.peek())}`);
    store(this.readGeneric(depth));
  }

  private readGeneric(depth: number): unknown {
    const open = this.peek();
    const closer = open.text === '{' ? '}' : open.text === '<' ? '>' : null;
    if (open.type === 'symbol' && closer) {
      this.next();
      return this.parseMessage(GENERIC, closer, depth + 1, open);
    }
    if (open.type === 'string') return this.readString('(unknown)');
    const negative = this.tryConsume('-');
    const tok = this.next();
    if (tok.type === 'ident') {
      const low = tok.text.toLowerCase();
      if (!negative && (tok.text === 'true' || tok.text === 'True')) return true;
      if (!negative && (tok.text === 'false' || tok.text === 'False')) return false;
      if (low === 'nan') return NaN;
      if (low === 'inf' || low === 'infinity') return negative ? -Infinity : Infinity;
      if (!negative) return tok.text;
    }
    if (tok.type === 'number') {
      const r = readFloat(tok, negative, '');
      if (r.ok) return r.value;
    }
    return this.fail(`expected a value, found ${show(tok)}`, tok);
  }
}

const GENERIC: MessageDef = { name: '(unknown)', fields: [], byName: new Map() };

const entryDefs = new Map<FieldDef, MessageDef>();

function entryField(field: FieldDef, which: 'key' | 'value'): FieldDef {
  return mapEntryDef(field).byName.get(which)!;
}

/** The synthetic `{ key, value }` entry message of a map field. */
function mapEntryDef(field: FieldDef): MessageDef {
  let def = entryDefs.get(field);
  if (def) return def;
  if (field.type.kind !== 'map') throw new Error('not a map');
  const key: FieldDef = { name: 'key', number: 1, type: { kind: 'scalar', scalar: field.type.key }, repeated: false };
  const value: FieldDef = { name: 'value', number: 2, type: field.type.value, repeated: false };
  const entryName = `${field.name.replace(/(^|_)([a-z])/g, (_, __, c: string) => c.toUpperCase())}Entry`;
  def = {
    name: entryName,
    fields: [key, value],
    byName: new Map([
      ['key', key],
      ['value', value],
    ]),
  };
  entryDefs.set(field, def);
  return def;
}

function show(t: Token): string {
  return t.type === 'eof' ? 'end of input' : `"${t.text.length > 40 ? `${t.text.slice(0, 40)}…` : t.text}"`;
}

function run(text: string, lenient: boolean): PbtxtResult {
  try {
    const parser = new Parser(tokenize(text), lenient);
    return { ok: true, config: parser.parseMessage(messageDef('ModelConfig'), null, 0) as ModelConfig };
  } catch (e) {
    if (e instanceof PbtxtSyntaxError) return { ok: false, error: e.error };
    throw e;
  }
}

/**
 * Parses a `config.pbtxt` as Triton does; an unknown field is an error.
 * @example parsePbtxt('name: "m" max_batch_size: 8') // { ok: true, config: { name: 'm', max_batch_size: 8 } }
 */
export function parsePbtxt(text: string): PbtxtResult {
  return run(text, false);
}

/**
 * Like {@link parsePbtxt}, but fields the schema does not know are kept as generic JSON values
 * (blocks → objects, repeats → arrays) so a config from a newer Triton survives open-and-save.
 * @example parsePbtxtLenient('future_field: 3').ok === true
 */
export function parsePbtxtLenient(text: string): PbtxtResult {
  return run(text, true);
}
