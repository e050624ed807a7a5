/**
 * The config Triton reports for a model after it loads (`/v2/models/{m}/config`): the written
 * config with Triton's defaults filled in, in the order core fills them: backend auto-complete
 * (`AutoCompleteBackendFields`), `NormalizeModelConfig`, `NormalizeInstanceGroup`, and the ensemble
 * validation that marks an ensemble decoupled when a decoupled model feeds it.
 */
import type { InstanceGroup, ModelConfig } from '../pbtxt/modelConfig.ts';
import { autoCompleteBackend, clone } from '../pbtxt/normalizeConfig.ts';
import { isEnsembleDecoupled } from '../pbtxt/validateEnsembleConfigs.ts';
import { asRecord, isEnsemble } from '../pbtxt/rules/util.ts';

export interface EffectiveConfigOptions {
  /** The model's directory name: the name when the config gives none, and `name.<backend>` auto-complete. */
  dirName: string;
  /** Names of the files in the model's version directory (e.g. `['model.onnx']`). */
  files?: readonly string[];
  /** GPUs the server has; 0 or omitted means a CPU-only server. */
  gpus?: number;
  /** Every model of the repository by name, so an ensemble can tell whether a step is decoupled. */
  configs?: Readonly<Record<string, ModelConfig>>;
}

/** Triton's default idle time of a sequence, 1 s. */
const SEQUENCE_IDLE_DEFAULT_MICROSECONDS = 1_000_000;

function fillBackend(config: ModelConfig, opts: EffectiveConfigOptions): void {
  const fields = autoCompleteBackend(config, opts.dirName, opts.files ?? []);
  if (fields.platform) config.platform = fields.platform;
  if (fields.backend) config.backend = fields.backend;
  if (fields.default_model_filename) config.default_model_filename = fields.default_model_filename;
}

function fillPreferred(batching: Record<string, unknown>, mbs: number): void {
  const sizes = batching.preferred_batch_size;
  if ((!Array.isArray(sizes) || sizes.length === 0) && mbs > 0) batching.preferred_batch_size = [mbs];
}

/** `NormalizeModelConfig`: version policy, preferred batch sizes, sequence idle time, pinned memory. */
function normalize(config: ModelConfig): void {
  if (config.version_policy === undefined) config.version_policy = { latest: { num_versions: 1 } };
  const mbs = config.max_batch_size ?? 0;
  if (config.dynamic_batching !== undefined) fillPreferred(asRecord(config.dynamic_batching), mbs);
  if (config.sequence_batching !== undefined) {
    const sb = asRecord(config.sequence_batching);
    if (!sb.max_sequence_idle_microseconds) sb.max_sequence_idle_microseconds = SEQUENCE_IDLE_DEFAULT_MICROSECONDS;
    if (sb.oldest !== undefined) fillPreferred(asRecord(sb.oldest), mbs);
  }
  if (config.ensemble_scheduling === undefined) {
    const opt = asRecord(config.optimization);
    if (opt.input_pinned_memory === undefined) opt.input_pinned_memory = { enable: true };
    if (opt.output_pinned_memory === undefined) opt.output_pinned_memory = { enable: true };
    config.optimization = opt;
  }
}

/** `NormalizeInstanceGroup`: at least one group; each with a name, a resolved kind, a count and its GPUs. */
function normalizeGroups(config: ModelConfig, gpus: number): void {
  if (config.ensemble_scheduling !== undefined) return;
  const all = Array.from({ length: gpus }, (_, i) => i);
  const groups: InstanceGroup[] = config.instance_group?.length ? config.instance_group : [{ name: config.name }];
  config.instance_group = groups.map((g, i) => {
    const listed = Array.isArray(g.gpus) ? g.gpus : [];
    let kind = g.kind ?? 'KIND_AUTO';
    if (kind === 'KIND_AUTO') kind = gpus > 0 && listed.every((id) => id < gpus) ? 'KIND_GPU' : 'KIND_CPU';
    const cpuDefault = kind === 'KIND_CPU' && (config.backend === 'onnxruntime' || config.backend === 'tensorflow');
    const count = typeof g.count === 'number' && g.count >= 1 ? g.count : cpuDefault ? 2 : 1;
    const out: InstanceGroup = { ...g, name: g.name || `${config.name}_${i}`, kind, count };
    if (kind === 'KIND_GPU' && listed.length === 0 && all.length > 0) out.gpus = all;
    return out;
  });
}

/**
 * What Triton reports as the config of a loaded model. Pure: the argument is not changed.
 * Fills `name`, `platform`/`backend`/`default_model_filename`, `version_policy` (latest 1),
 * `preferred_batch_size` ([max_batch_size]) for dynamic batching and the oldest strategy,
 * `max_sequence_idle_microseconds` (1 s), `optimization` pinned memory (non-ensembles), instance
 * groups (named `<model>` or `<model>_<i>`, KIND_AUTO resolved, count 2 on CPU for onnxruntime and
 * tensorflow, else 1) and, for an ensemble, `model_transaction_policy.decoupled` (true when a step
 * is decoupled, also through a nested ensemble).
 * @example effectiveConfig({ backend: 'python' }, { dirName: 'add' }).instance_group // [{ name: 'add', kind: 'KIND_CPU', count: 1 }]
 */
export function effectiveConfig(config: ModelConfig, opts: EffectiveConfigOptions): ModelConfig {
  const out = clone(config);
  if (!out.name) out.name = opts.dirName;
  if (!isEnsemble(out)) fillBackend(out, opts);
  normalize(out);
  normalizeGroups(out, opts.gpus ?? 0);
  if (isEnsemble(out) && out.ensemble_scheduling !== undefined) {
    const configs = { ...(opts.configs ?? {}), [out.name]: out };
    out.model_transaction_policy = {
      ...asRecord(out.model_transaction_policy),
      decoupled: isEnsembleDecoupled(out.name, configs),
    };
  }
  return out;
}
