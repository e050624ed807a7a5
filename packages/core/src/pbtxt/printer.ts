/**
 * Deterministic protobuf text-format printer for ModelConfig in the style of Triton's examples:
 * two-space indent, `input [ { … }, { … } ]`, `dims: [ 3, -1 ]`, one block per map key (keys sorted).
 * Everything printed reparses to the same JSON (see printer.test.ts).
 */
import type { ModelConfig } from './modelConfig.ts';
import { ENUMS } from './protoEnums.ts';
import { messageDef, type FieldDef, type FieldType, type MessageDef, type ScalarKind } from './schema.ts';

type Json = Record<string, unknown>;

/** ModelConfig's leading fields, in the order Triton's examples write them; the rest follow by field number. */
const TOP_ORDER = ['name', 'platform', 'backend', 'max_batch_size', 'input', 'output'];
const INDENT = '  ';

const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);
const asArray = (v: unknown): unknown[] => (Array.isArray(v) ? v : [v]);

/** Quotes a string so protoc reads back exactly the same text (non-ASCII stays UTF-8). */
export function quoteString(s: string): string {
  let out = '"';
  for (const ch of s) {
    const c = ch.codePointAt(0) ?? 0;
    if (ch === '\\') out += '\\\\';
    else if (ch === '"') out += '\\"';
    else if (ch === '\n') out += '\\n';
    else if (ch === '\r') out += '\\r';
    else if (ch === '\t') out += '\\t';
    else if (c < 0x20 || c === 0x7f) out += `\\${c.toString(8).padStart(3, '0')}`;
    else if (c >= 0xd800 && c <= 0xdfff)
      out += '\ufffd'; // a lone surrogate has no UTF-8 form
    else out += ch;
  }
  return `${out}"`;
}

/** Formats a float/double so it reparses to the same number (`inf`, `-inf`, `nan`, `-0`). */
function formatFloat(v: number): string {
  if (Number.isNaN(v)) return 'nan';
  if (v === Infinity) return 'inf';
  if (v === -Infinity) return '-inf';
  if (Object.is(v, -0)) return '-0';
  return String(v);
}

function formatInt(v: unknown): string {
  const n = Number(v);
  return Number.isInteger(n) ? BigInt(n).toString() : String(v);
}

function formatScalar(type: FieldType, v: unknown): string {
  if (type.kind === 'enum') return typeof v === 'number' ? (ENUMS[type.enum]?.[v] ?? String(v)) : String(v);
  if (type.kind !== 'scalar') return String(v);
  const s: ScalarKind = type.scalar;
  if (s === 'string' || s === 'bytes') return quoteString(String(v));
  if (s === 'bool') return v === true || v === 'true' ? 'true' : 'false';
  if (s === 'float' || s === 'double') return formatFloat(Number(v));
  return formatInt(v);
}

/** An unknown (lenient) value: enum-like identifiers stay bare, other strings are quoted. */
function formatGeneric(v: unknown): string {
  if (typeof v === 'string') return /^[A-Z][A-Z0-9_]*$/.test(v) && !/^(INF|INFINITY|NAN)$/.test(v) ? v : quoteString(v);
  if (typeof v === 'number') return Number.isInteger(v) ? formatInt(v) : formatFloat(v);
  return v ? 'true' : 'false';
}

function orderedKeys(def: MessageDef, obj: Json): { known: FieldDef[]; unknown: string[] } {
  const known = def.fields.filter((f) => obj[f.name] != null && Object.prototype.hasOwnProperty.call(obj, f.name));
  const rank = (f: FieldDef): number => {
    const i = def.name === 'ModelConfig' ? TOP_ORDER.indexOf(f.name) : -1;
    return i >= 0 ? i - 100 : f.number;
  };
  known.sort((a, b) => rank(a) - rank(b));
  const unknown = Object.keys(obj)
    .filter((k) => !def.byName.has(k) && obj[k] !== undefined && obj[k] !== null)
    .sort();
  return { known, unknown };
}

/** True when a message prints well on one line: at most one field, and that one a scalar or scalar list. */
function isFlat(def: MessageDef, obj: Json): boolean {
  const { known, unknown } = orderedKeys(def, obj);
  if (unknown.length > 0 || known.length > 1) return false;
  const t = known[0]?.type.kind;
  return t === undefined || t === 'scalar' || t === 'enum';
}

function printMessage(def: MessageDef, obj: Json, indent: string, out: string[]): void {
  const { known, unknown } = orderedKeys(def, obj);
  for (const field of known) printField(field, obj[field.name], indent, out);
  for (const key of unknown) printGenericField(key, obj[key], indent, out);
}

/** Prints `{ … }` for a message value after `head` (e.g. `reshape: ` or `{`-less list items). */
function printBlock(head: string, def: MessageDef, obj: Json, indent: string, out: string[], inline: boolean): void {
  if (inline && isFlat(def, obj)) {
    const inner: string[] = [];
    printMessage(def, obj, '', inner);
    out.push(`${indent}${head}${inner.length ? `{ ${inner[0]} }` : '{ }'}`);
    return;
  }
  const body: string[] = [];
  printMessage(def, obj, indent + INDENT, body);
  const opener = head.endsWith(': ') ? head.slice(0, -2) + ' ' : head;
  if (body.length === 0) out.push(`${indent}${opener}{ }`);
  else out.push(`${indent}${opener}{`, ...body, `${indent}}`);
}

function printField(field: FieldDef, value: unknown, indent: string, out: string[]): void {
  const t = field.type;
  if (t.kind === 'map') return printMap(field, t, isObject(value) ? value : {}, indent, out);
  if (field.repeated) {
    const items = asArray(value);
    if (t.kind !== 'message') {
      const list = items.map((v) => formatScalar(t, v)).join(', ');
      out.push(`${indent}${field.name}: [ ${list}${list ? ' ' : ''}]`);
      return;
    }
    if (items.length === 0) return void out.push(`${indent}${field.name} [ ]`);
    out.push(`${indent}${field.name} [`);
    const def = messageDef(t.message);
    items.forEach((item, i) => {
      printBlock('', def, isObject(item) ? item : {}, indent + INDENT, out, false);
      if (i < items.length - 1) out[out.length - 1] += ',';
    });
    out.push(`${indent}]`);
    return;
  }
  if (t.kind === 'message') {
    const top = indent === '';
    printBlock(`${field.name}: `, messageDef(t.message), isObject(value) ? value : {}, indent, out, !top);
    return;
  }
  out.push(`${indent}${field.name}: ${formatScalar(t, value)}`);
}

function printMap(
  field: FieldDef,
  t: Extract<FieldType, { kind: 'map' }>,
  map: Json,
  indent: string,
  out: string[],
): void {
  const numeric = t.key !== 'string' && t.key !== 'bytes' && t.key !== 'bool';
  const keys = Object.keys(map).sort((a, b) => (numeric ? Number(a) - Number(b) : a < b ? -1 : a > b ? 1 : 0));
  if (keys.length === 0) return void out.push(`${indent}${field.name} [ ]`);
  const keyType: FieldType = { kind: 'scalar', scalar: t.key };
  for (const key of keys) {
    const k = `key: ${formatScalar(keyType, t.key === 'bool' ? key === 'true' : key)}`;
    const v = map[key];
    if (t.value.kind !== 'message') {
      out.push(`${indent}${field.name} { ${k} value: ${formatScalar(t.value, v)} }`);
      continue;
    }
    out.push(`${indent}${field.name} {`, `${indent}${INDENT}${k}`);
    printBlock('value: ', messageDef(t.value.message), isObject(v) ? v : {}, indent + INDENT, out, true);
    out.push(`${indent}}`);
  }
}

/** Prints a field the schema does not know (kept by the lenient parser). */
function printGenericField(name: string, value: unknown, indent: string, out: string[]): void {
  if (Array.isArray(value)) {
    const present = value.filter((v) => v !== undefined && v !== null);
    if (present.every(isObject) && present.length > 0) {
      out.push(`${indent}${name} [`);
      present.forEach((item, i) => {
        printGenericBlock('', item as Json, indent + INDENT, out);
        if (i < present.length - 1) out[out.length - 1] += ',';
      });
      out.push(`${indent}]`);
    } else if (present.some(isObject)) {
      for (const item of present) printGenericField(name, item, indent, out);
    } else {
      const list = present.map(formatGeneric).join(', ');
      out.push(`${indent}${name}: [ ${list}${list ? ' ' : ''}]`);
    }
    return;
  }
  if (isObject(value)) printGenericBlock(`${name} `, value, indent, out);
  else out.push(`${indent}${name}: ${formatGeneric(value)}`);
}

function printGenericBlock(head: string, obj: Json, indent: string, out: string[]): void {
  const body: string[] = [];
  for (const key of Object.keys(obj).sort()) {
    if (obj[key] !== undefined && obj[key] !== null) printGenericField(key, obj[key], indent + INDENT, body);
  }
  if (body.length === 0) out.push(`${indent}${head}{ }`);
  else out.push(`${indent}${head}{`, ...body, `${indent}}`);
}

/**
 * Prints a ModelConfig as `config.pbtxt` text: deterministic, Triton-example style, ending with "\n".
 * Leading fields are name, platform, backend, max_batch_size, input, output; the rest follow in
 * proto field-number order; fields the schema does not know come last, sorted by name.
 * @example printPbtxt({ name: 'm', max_batch_size: 0 }) === 'name: "m"\nmax_batch_size: 0\n'
 */
export function printPbtxt(config: ModelConfig): string {
  const out: string[] = [];
  printMessage(messageDef('ModelConfig'), config as Json, '', out);
  return `${out.join('\n')}\n`;
}
