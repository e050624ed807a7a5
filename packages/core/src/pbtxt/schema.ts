/**
 * Triton's `model_config.proto` as data: the field lines of `protoMessages.ts` and the enums of `protoEnums.ts`
 * compiled once into {@link MessageDef}s, and the synthetic entry message protobuf gives each map field.
 */
import { ENUMS } from './protoEnums.ts';
import { MESSAGE_FIELDS } from './protoMessages.ts';

export type ScalarKind = 'int32' | 'int64' | 'uint32' | 'uint64' | 'float' | 'double' | 'bool' | 'string' | 'bytes';

export type FieldType =
  | { kind: 'scalar'; scalar: ScalarKind }
  | { kind: 'enum'; enum: string }
  | { kind: 'message'; message: string }
  | { kind: 'map'; key: ScalarKind; value: FieldType };

export interface FieldDef {
  name: string;
  number: number;
  type: FieldType;
  /** True for `repeated` fields; map fields are repeated entries but have `repeated: false` and `type.kind === 'map'`. */
  repeated: boolean;
  oneof?: string;
}

export interface MessageDef {
  name: string;
  fields: FieldDef[];
  byName: Map<string, FieldDef>;
}

const SCALARS = new Set<string>(['int32', 'int64', 'uint32', 'uint64', 'float', 'double', 'bool', 'string', 'bytes']);

function typeOf(spec: string): FieldType {
  const map = /^map<(\w+),([\w.]+)>$/.exec(spec);
  if (map) return { kind: 'map', key: map[1] as ScalarKind, value: typeOf(map[2] ?? '') };
  if (SCALARS.has(spec)) return { kind: 'scalar', scalar: spec as ScalarKind };
  if (spec in ENUMS) return { kind: 'enum', enum: spec };
  if (spec in MESSAGE_FIELDS) return { kind: 'message', message: spec };
  throw new Error(`schema: unknown type ${spec}`);
}

function compileField(line: string): FieldDef {
  const m = /^(repeated |oneof (\w+) )?(\S+) (\w+) = (\d+)$/.exec(line);
  if (!m) throw new Error(`schema: bad field line ${line}`);
  const field: FieldDef = {
    name: m[4] ?? '',
    number: Number(m[5]),
    type: typeOf(m[3] ?? ''),
    repeated: m[1] === 'repeated ',
  };
  if (m[2]) field.oneof = m[2];
  return field;
}

/** Every message of model_config.proto, by (dotted) name, e.g. `ModelSequenceBatching.Control`. */
const MESSAGES: Record<string, MessageDef> = Object.fromEntries(
  Object.entries(MESSAGE_FIELDS).map(([name, lines]) => {
    const fields = lines.map(compileField);
    return [name, { name, fields, byName: new Map(fields.map((f) => [f.name, f])) }];
  }),
);

/**
 * The message definition for `name`; throws on a name the schema does not have (a programming error).
 * @example messageDef('ModelInput').byName.get('dims')?.number === 4
 */
export function messageDef(name: string): MessageDef {
  const def = MESSAGES[name];
  if (!def) throw new Error(`schema: unknown message ${name}`);
  return def;
}

const entryDefs = new Map<FieldDef, MessageDef>();

/** The `key` or `value` field of a map field's entry message. */
export function entryField(field: FieldDef, which: 'key' | 'value'): FieldDef {
  return mapEntryDef(field).byName.get(which)!;
}

/** The synthetic `{ key, value }` entry message of a map field. */
export function mapEntryDef(field: FieldDef): MessageDef {
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
