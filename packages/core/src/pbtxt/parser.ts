/**
 * Protobuf text-format parser for Triton's ModelConfig, following protoc's `TextFormat::Parser`
 * with default options, as Triton reads `config.pbtxt`. Produces the JSON shape `/v2/models/m/config` prints,
 * without defaults filled in.
 */
import type { ModelConfig } from './modelConfig.ts';
import { Lexer, PbtxtSyntaxError, type PbtxtError, type Token } from './lexer.ts';
import { entryField, mapEntryDef, messageDef, type FieldDef, type FieldType, type MessageDef } from './schema.ts';
import { defaultScalar, readBool, readEnum, readFloat, readInt, setOwn, type ScalarResult } from './values.ts';

export type { PbtxtError } from './lexer.ts';
export type PbtxtResult = { ok: true; config: ModelConfig } | { ok: false; error: PbtxtError };

/** protoc's default recursion limit. */
const MAX_DEPTH = 100;

type Json = Record<string, unknown>;

class Parser {
  constructor(
    private readonly lex: Lexer,
    private readonly lenient: boolean,
  ) {}

  private is(sym: string): boolean {
    return this.lex.isSymbol(sym);
  }
  private tryConsume(sym: string): boolean {
    if (!this.lex.isSymbol(sym)) return false;
    this.lex.advance();
    return true;
  }
  /** Throws at offset `at`, the current token by default. */
  private fail(message: string, at: number = this.lex.start): never {
    return this.lex.fail(message, at);
  }
  private expect(sym: string, what: string): void {
    if (!this.tryConsume(sym)) this.fail(`expected "${sym}" ${what}, found ${show(this.lex)}`);
  }
  private checkDepth(depth: number): void {
    if (depth > MAX_DEPTH) this.fail(`nesting is deeper than ${MAX_DEPTH} levels`);
  }
  /** `line:column` of offset `at`, naming an opener in an error. */
  private where(at: number): string {
    const { line, column } = this.lex.position(at);
    return `${line}:${column}`;
  }

  /** Parses fields until `closer` (or end of input for the top level); `opener` is the offset of its bracket. */
  parseMessage(def: MessageDef, closer: string | null, depth: number, opener?: number): Json {
    this.checkDepth(depth);
    const lex = this.lex;
    const obj: Json = {};
    const seen = new Set<string>();
    const oneofs = new Map<string, string>();
    for (;;) {
      if (closer === null && lex.type === 'eof') return obj;
      if (closer !== null && this.tryConsume(closer)) return obj;
      if (lex.type === 'eof') {
        const where = opener !== undefined ? ` opened at ${this.where(opener)}` : '';
        this.fail(`unterminated block: expected "${closer}" to close the block${where}`);
      }
      if (lex.type !== 'ident') this.fail(`expected a field name, found ${show(lex)}`);
      const name = lex.text;
      const at = lex.start;
      lex.advance();
      const field = def.byName.get(name);
      if (field) this.parseKnownField(def, field, obj, at, seen, oneofs, depth);
      else if (this.lenient) this.parseUnknownField(obj, name, depth);
      else this.fail(`unknown field "${name}" in message inference.${def.name}`, at);
      if (!this.tryConsume(',')) this.tryConsume(';');
    }
  }

  private parseKnownField(
    def: MessageDef,
    field: FieldDef,
    obj: Json,
    at: number,
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
      const open = this.lex.start;
      this.lex.advance();
      if (!(field.name in obj)) setOwn(obj, field.name, field.type.kind === 'map' ? {} : []);
      this.parseList(() => this.addValue(field, obj, depth + 1), open, depth + 1);
      return;
    }
    if (isMessage && !this.is('{') && !this.is('<'))
      this.fail(`expected "{" to start field "${field.name}", found ${show(this.lex)}`);
    this.addValue(field, obj, depth);
  }

  /** Parses `[ v, v, ... ]` after its opening bracket (at offset `open`), calling `item` per element. */
  private parseList(item: () => void, open: number, depth: number): void {
    this.checkDepth(depth);
    if (this.tryConsume(']')) return;
    for (;;) {
      if (this.lex.type === 'eof')
        this.fail(`unterminated list: expected "]" to close the list opened at ${this.where(open)}`);
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
    const open = this.lex.start;
    if (this.tryConsume('{')) return this.parseMessage(def, '}', depth + 1, open);
    if (this.tryConsume('<')) return this.parseMessage(def, '>', depth + 1, open);
    return this.fail(`expected "{" or "<" to start a message, found ${show(this.lex)}`);
  }

  private readScalar(field: FieldDef): number | boolean | string {
    const t: FieldType = field.type;
    if (t.kind === 'scalar' && (t.scalar === 'string' || t.scalar === 'bytes')) return this.readString(field.name);
    const negative = this.tryConsume('-');
    const tok = this.lex;
    let r: ScalarResult;
    if (t.kind === 'enum') r = readEnum(t.enum, tok, negative, field.name);
    else if (t.kind !== 'scalar') r = { ok: false, message: `field "${field.name}" expects a message` };
    else if (t.scalar === 'bool')
      r = negative
        ? { ok: false, message: `field "${field.name}" expects true or false, found "-"` }
        : readBool(tok, field.name);
    else if (t.scalar === 'float' || t.scalar === 'double') r = readFloat(tok, negative, field.name);
    else r = readInt(t.scalar, tok, negative, field.name);
    if (!r.ok) this.fail(r.message);
    tok.advance();
    return r.value;
  }

  /** One or more adjacent string literals, concatenated. */
  private readString(name: string): string {
    const lex = this.lex;
    if (lex.type !== 'string') this.fail(`field "${name}" expects a quoted string, found ${show(lex)}`);
    let s = '';
    while (lex.type === 'string') {
      s += lex.value;
      lex.advance();
    }
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
      const open = this.lex.start;
      this.lex.advance();
      const items: unknown[] = [];
      this.parseList(() => items.push(this.readGeneric(depth + 1)), open, depth + 1);
      const prev = obj[name];
      if (!Object.prototype.hasOwnProperty.call(obj, name)) setOwn(obj, name, items);
      else if (Array.isArray(prev)) prev.push(...items);
      else setOwn(obj, name, [prev, ...items]);
      return;
    }
    if (!hadColon && !this.is('{') && !this.is('<'))
      this.fail(`expected ":" or "{" after field "${name}", found ${show(this.lex)}`);
    store(this.readGeneric(depth));
  }

  private readGeneric(depth: number): unknown {
    const lex = this.lex;
    const closer = lex.type !== 'symbol' ? null : lex.text === '{' ? '}' : lex.text === '<' ? '>' : null;
    if (closer) {
      const open = lex.start;
      lex.advance();
      return this.parseMessage(GENERIC, closer, depth + 1, open);
    }
    if (lex.type === 'string') return this.readString('(unknown)');
    const negative = this.tryConsume('-');
    const value = genericScalar(lex, negative);
    if (value === undefined) return this.fail(`expected a value, found ${show(lex)}`);
    lex.advance();
    return value;
  }
}

/** A lenient field's scalar: a bool, nan/inf, a bare identifier or a number; undefined when none fits. */
function genericScalar(tok: Token, negative: boolean): unknown {
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
  return undefined;
}

const GENERIC: MessageDef = { name: '(unknown)', fields: [], byName: new Map() };

function show(t: Token): string {
  return t.type === 'eof' ? 'end of input' : `"${t.text.length > 40 ? `${t.text.slice(0, 40)}…` : t.text}"`;
}

function run(text: string, lenient: boolean): PbtxtResult {
  try {
    const parser = new Parser(new Lexer(text), lenient);
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
