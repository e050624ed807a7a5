import type { ServiceDefinition } from '@grpc/grpc-js';
import type { PackageDefinition } from '@grpc/proto-loader';

/** A message's descriptor as proto-loader gives it (`DescriptorProto` as a plain object). */
interface Descriptor {
  name: string;
  field: { name: string; label: string; type: string; typeName: string }[];
  nestedType?: Descriptor[];
  options?: { mapEntry?: boolean } | null;
}

const SCALARS: Record<string, unknown> = {
  TYPE_STRING: 'a',
  TYPE_BYTES: Buffer.from([1]),
  TYPE_BOOL: true,
  TYPE_ENUM: 1,
  TYPE_DOUBLE: 1.5,
  TYPE_FLOAT: 1.5,
};

/** Every message descriptor of `definition` by full name, nested ones (map entries included) as well. */
function descriptors(definition: PackageDefinition): Map<string, Descriptor> {
  const all = new Map<string, Descriptor>();
  const add = (full: string, d: Descriptor) => {
    all.set(full, d);
    for (const n of d.nestedType ?? []) add(`${full}.${n.name}`, n);
  };
  for (const [name, def] of Object.entries(definition))
    if ('format' in def && def.format === 'Protocol Buffer 3 DescriptorProto') add(name, def.type as Descriptor);
  return all;
}

/** The full name `typeName` (as written in the .proto) stands for inside message `scope`, by protobuf's scoping. */
function resolve(all: Map<string, Descriptor>, scope: string, typeName: string): string | undefined {
  if (typeName.startsWith('.')) return all.has(typeName.slice(1)) ? typeName.slice(1) : undefined;
  for (let s = scope; ; s = s.slice(0, Math.max(0, s.lastIndexOf('.')))) {
    const full = s ? `${s}.${typeName}` : typeName;
    if (all.has(full)) return full;
    if (!s) return undefined;
  }
}

/**
 * An object with every field of message `full` set (one element in each repeated field and map, every member of each
 * oneof, nested messages filled the same way; a message already being filled further up is left out, so recursive
 * types end), so that encoding and decoding it reaches every message type it can hold.
 */
function sample(all: Map<string, Descriptor>, full: string, path: Set<string> = new Set()): Record<string, unknown> {
  const d = all.get(full)!;
  const out: Record<string, unknown> = {};
  path.add(full);
  for (const f of d.field) {
    let value: unknown = SCALARS[f.type] ?? '1';
    if (f.type === 'TYPE_MESSAGE' || f.type === 'TYPE_GROUP') {
      const t = resolve(all, full, f.typeName);
      if (t === undefined || path.has(t)) continue;
      const entry = all.get(t)!;
      if (entry.options?.mapEntry) {
        out[f.name] = { k: sample(all, t, path).value };
        continue;
      }
      value = sample(all, t, path);
    }
    out[f.name] = f.label === 'LABEL_REPEATED' ? [value] : value;
  }
  path.delete(full);
  return out;
}

/**
 * Has protobufjs generate, now, the code it otherwise generates the first time a message type is met (its encoder,
 * decoder and object converters: `Codegen`, tens of ms of the main thread for the inference service's types at a
 * quiet machine, several times that at load): every request and response type of `service` is filled, serialised and
 * deserialised once. Called before the server listens, so no client's first request pays it.
 * @example warmCodecs(definition, inferenceService().service)
 */
export function warmCodecs(definition: PackageDefinition, service: ServiceDefinition): void {
  const all = descriptors(definition);
  for (const method of Object.values(service)) {
    // '/inference.GRPCInferenceService/ModelInfer': the service's package is the scope of its message names.
    const service = method.path.slice(1, method.path.lastIndexOf('/'));
    const scope = service.slice(0, Math.max(0, service.lastIndexOf('.')));
    // proto-loader's method definitions also carry their message types' descriptors (grpc-js's type leaves them out).
    const types = method as { requestType?: unknown; responseType?: unknown };
    const sides = [
      [types.requestType, method.requestSerialize, method.requestDeserialize],
      [types.responseType, method.responseSerialize, method.responseDeserialize],
    ] as const;
    for (const [type, serialize, deserialize] of sides) {
      const name = (type as { type?: { name?: string } } | undefined)?.type?.name;
      const full = name === undefined ? undefined : resolve(all, scope, name);
      if (full === undefined) continue;
      deserialize(serialize(sample(all, full)));
    }
  }
}
