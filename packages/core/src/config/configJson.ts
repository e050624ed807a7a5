/**
 * A ModelConfig printed as Triton's HTTP endpoint prints it (core `ModelConfigToJson`): protobuf's
 * JSON with proto field names and every primitive field, so unset scalars appear with their default
 * (`""`, `0`, `false`, the enum's first name), unset repeated fields as `[]` and maps as `{}`; unset
 * messages and oneof members stay absent. 64-bit integers are JSON strings, as protobuf prints
 * them, except the fields Triton turns back into numbers (dims, shapes, versions, delays, timeouts,
 * priority levels, step model_version, warm-up dims).
 */
import type { ModelConfig } from '../pbtxt/modelConfig.ts';
import { ENUMS } from '../pbtxt/protoEnums.ts';
import { messageDef, type FieldDef, type FieldType } from '../pbtxt/schema.ts';

/** Field paths (message.field) whose 64-bit values Triton prints as numbers. */
const NUMERIC_64 = new Set([
  'ModelInput.dims',
  'ModelOutput.dims',
  'ModelTensorReshape.shape',
  'ModelVersionPolicy.Specific.versions',
  'ModelDynamicBatching.max_queue_delay_microseconds',
  'ModelDynamicBatching.priority_levels',
  'ModelDynamicBatching.default_priority_level',
  'ModelQueuePolicy.default_timeout_microseconds',
  'ModelSequenceBatching.max_sequence_idle_microseconds',
  'ModelSequenceBatching.StrategyOldest.max_queue_delay_microseconds',
  'ModelSequenceBatching.StrategyDirect.max_queue_delay_microseconds',
  'ModelSequenceBatching.State.dims',
  'ModelEnsembling.Step.model_version',
  'ModelWarmup.Input.dims',
]);
const WIDE = new Set(['int64', 'uint64']);

function defaultOf(type: FieldType): unknown {
  if (type.kind === 'enum') return ENUMS[type.enum]?.[0] ?? 0;
  if (type.kind !== 'scalar') return undefined;
  if (type.scalar === 'bool') return false;
  if (type.scalar === 'string' || type.scalar === 'bytes') return '';
  return 0;
}

function scalarJson(v: unknown, type: FieldType, path: string): unknown {
  if (type.kind === 'enum') return typeof v === 'number' ? (ENUMS[type.enum]?.[v] ?? v) : v;
  if (type.kind === 'message') return messageJson(v, type.message);
  if (
    type.kind === 'scalar' &&
    WIDE.has(type.scalar) &&
    !NUMERIC_64.has(path) &&
    (typeof v === 'number' || typeof v === 'bigint')
  )
    return String(v);
  return v;
}

function fieldJson(v: unknown, f: FieldDef, path: string): unknown {
  if (f.type.kind === 'map') {
    const value = f.type.value;
    const out: Record<string, unknown> = {};
    for (const [k, x] of Object.entries(typeof v === 'object' && v !== null ? v : {})) {
      Object.defineProperty(out, k, {
        value: scalarJson(x, value, path),
        enumerable: true,
        writable: true,
        configurable: true,
      });
    }
    return out;
  }
  if (f.repeated) return (Array.isArray(v) ? v : v === undefined ? [] : [v]).map((x) => scalarJson(x, f.type, path));
  return scalarJson(v, f.type, path);
}

function messageJson(value: unknown, message: string): Record<string, unknown> {
  const def = messageDef(message);
  const src = (typeof value === 'object' && value !== null ? value : {}) as Record<string, unknown>;
  const out: Record<string, unknown> = {};
  const put = (k: string, v: unknown): void =>
    void Object.defineProperty(out, k, { value: v, enumerable: true, writable: true, configurable: true });
  for (const f of def.fields) {
    const has = Object.hasOwn(src, f.name) && src[f.name] !== undefined;
    const path = `${message}.${f.name}`;
    if (has) put(f.name, fieldJson(src[f.name], f, path));
    else if (f.repeated) put(f.name, []);
    else if (f.type.kind === 'map') put(f.name, {});
    // The studio's schema lists the response spelling of max_inflight as a second oneof member; Triton's proto has one plain field.
    else if (
      f.oneof === 'max_inflight' &&
      f.name === 'max_inflight_requests' &&
      !Object.hasOwn(src, 'max_inflight_responses')
    )
      put(f.name, 0);
    else if (f.oneof === undefined && f.type.kind !== 'message')
      put(
        f.name,
        WIDE.has((f.type as { scalar?: string }).scalar ?? '') && !NUMERIC_64.has(path) ? '0' : defaultOf(f.type),
      );
  }
  for (const [k, v] of Object.entries(src)) if (!def.byName.has(k) && v !== undefined) put(k, v);
  return out;
}

/**
 * The JSON Triton's `GET /v2/models/{m}/config` returns for `config` (normally an
 * {@link effectiveConfig}): every primitive field present, Triton's number fix-ups applied.
 * Fields the schema does not know are passed through unchanged.
 * @example configJson({ name: 'm', backend: 'python' }).max_batch_size === 0
 */
export function configJson(config: ModelConfig): ModelConfig {
  return messageJson(config, 'ModelConfig') as ModelConfig;
}
