import type { CatalogueModel, TensorSpec } from '../catalogue/types.ts';
import { STUDIO_MARKER, type ModelConfig, type ModelInput, type ModelOutput } from '../pbtxt/modelConfig.ts';
import { fromConfigType } from '../tensor/dtype.ts';

/** The JSON of a generated model's `ensemble_studio` parameter, or undefined (absent or not JSON with a `kind`). */
export type StudioMarker = NonNullable<CatalogueModel['generated']>;

/**
 * Reads the generated-model marker of a config.
 * @example parseStudioMarker(config)?.kind // 'router' | 'condition' | 'op' | 'bls'
 */
export function parseStudioMarker(config: ModelConfig): StudioMarker | undefined {
  const raw = config.parameters?.[STUDIO_MARKER]?.string_value;
  if (raw === undefined) return undefined;
  try {
    const v: unknown = JSON.parse(raw);
    if (typeof v === 'object' && v !== null && !Array.isArray(v) && typeof (v as { kind?: unknown }).kind === 'string')
      return v as StudioMarker;
  } catch {
    // not JSON: treated as an ordinary parameter
  }
  return undefined;
}

function tensors(
  side: 'input' | 'output',
  list: (ModelInput | ModelOutput)[] | undefined,
  problems: string[],
): TensorSpec[] {
  const out: TensorSpec[] = [];
  for (const t of list ?? []) {
    // Left out, not a load error: the config rules report a tensor without a name or data_type.
    if (typeof t.name !== 'string' || !t.name || typeof t.data_type !== 'string' || t.data_type === 'TYPE_INVALID')
      continue;
    const datatype = fromConfigType(t.data_type);
    if (!datatype) {
      problems.push(`${side} '${t.name}' has unknown data_type '${t.data_type}'`);
      continue;
    }
    out.push({
      name: t.name,
      datatype,
      dims: [...(t.dims ?? [])],
      ...((t as ModelInput).optional ? { optional: true } : {}),
    });
  }
  return out;
}

/**
 * The catalogue entry of a model from its (normalized) config: signature, batching, decoupled,
 * platform/backend, and the studio marker as `generated`. Unknown data types leave the tensor
 * out and set `error`.
 * @example catalogueModelFromConfig('det', parsed.config, [1]).inputs[0]?.datatype // 'FP32'
 */
export function catalogueModelFromConfig(name: string, config: ModelConfig, versions: number[]): CatalogueModel {
  const problems: string[] = [];
  const inputs = tensors('input', config.input, problems);
  const outputs = tensors('output', config.output, problems);
  const generated = parseStudioMarker(config);
  return {
    name,
    versions: [...versions],
    platform: config.platform ?? '',
    backend: config.backend ?? '',
    maxBatchSize: config.max_batch_size ?? 0,
    inputs,
    outputs,
    decoupled: config.model_transaction_policy?.decoupled === true,
    config,
    ...(generated ? { generated } : {}),
    ...(problems.length > 0 ? { error: problems.join('; ') } : {}),
  };
}
