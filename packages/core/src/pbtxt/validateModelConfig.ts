/**
 * Triton's rules for one `config.pbtxt` on its own: what Triton would
 * refuse at load time, as {@link Diagnostic}s with stable codes, Triton's wording and a fix each.
 */
import type { Diagnostic } from '../validate/diagnostic.ts';
import type { ModelConfig } from './modelConfig.ts';
import { checkEnsembleFlow, checkEnsembleShape } from './rules/ensembleRules.ts';
import { checkInstanceGroups } from './rules/instanceRules.ts';
import { checkIO } from './rules/ioRules.ts';
import {
  checkMaxBatchSize,
  checkModelMetrics,
  checkName,
  checkPlatform,
  checkRuntime,
  checkVersions,
  checkWarmup,
} from './rules/modelRules.ts';
import { checkDynamicBatching, checkResponseCache } from './rules/schedulingRules.ts';
import { checkSequenceBatching } from './rules/sequenceRules.ts';
import { modelLabel } from './rules/util.ts';

export interface ValidateModelOptions {
  /** The model's directory name. */
  dirName?: string;
  /**
   * The model's numeric version directories, when known: then a model with no version to serve
   * is refused, and missing data_type/dims are left to a backend that auto-completes them.
   */
  versions?: readonly number[];
}

/**
 * Checks every single-config rule: name vs directory, platform/backend, runtime, max_batch_size,
 * versions, inputs and outputs (dims, reshape, format, TensorRT-only fields, batch IO), instance
 * groups, dynamic and sequence batching, response cache, model metrics, warm-up, and the
 * ensemble's own wiring (steps, tensors produced/consumed). Expects the auto-completed config
 * (`normalizeConfig`), as Triton validates after auto-complete.
 * @example validateModelConfig({ name: 'm', backend: 'python', max_batch_size: -1 }).map((d) => d.code) // ['max-batch-size-negative']
 */
export function validateModelConfig(config: ModelConfig, opts: ValidateModelOptions = {}): Diagnostic[] {
  const m = `'${modelLabel(config, opts.dirName)}'`;
  return [
    ...checkName(config, opts.dirName),
    ...checkPlatform(config, m, opts.dirName),
    ...checkRuntime(config, m),
    ...checkMaxBatchSize(config, m),
    ...checkVersions(config, m, opts.versions),
    ...checkIO(config, m, opts.versions),
    ...checkInstanceGroups(config, m),
    ...checkDynamicBatching(config, m),
    ...checkSequenceBatching(config, m),
    ...checkResponseCache(config, m),
    ...checkModelMetrics(config, m),
    ...checkWarmup(config, m),
    ...checkEnsembleShape(config, m),
    ...checkEnsembleFlow(config, m),
  ];
}
