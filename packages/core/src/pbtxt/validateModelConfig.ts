/**
 * Triton's rules for one `config.pbtxt` on its own (TRITON.md §0, §1, §2.3): what Triton would
 * refuse at load time, as {@link Diagnostic}s with stable codes and a fix each.
 */
import type { Diagnostic } from '../validate/diagnostic.ts';
import type { ModelConfig } from './modelConfig.ts';
import { checkEnsembleFlow, checkEnsembleShape } from './rules/ensembleRules.ts';
import { checkInstanceGroups, checkIO, checkMaxBatchSize, checkName, checkPlatform } from './rules/modelRules.ts';
import { checkDynamicBatching, checkResponseCache, checkSequenceBatching } from './rules/schedulingRules.ts';
import { modelLabel } from './rules/util.ts';

/**
 * Checks every single-config rule: name vs directory, platform/backend, max_batch_size, inputs and
 * outputs (dims, reshape, format, duplicates), instance groups, dynamic and sequence batching,
 * response cache, and the ensemble's own wiring (steps, versions, tensors produced/consumed).
 * @example validateModelConfig({ name: 'm', backend: 'python', max_batch_size: -1 }).map((d) => d.code) // ['max-batch-size-negative']
 */
export function validateModelConfig(config: ModelConfig, opts: { dirName?: string } = {}): Diagnostic[] {
  const m = `'${modelLabel(config, opts.dirName)}'`;
  return [
    ...checkName(config, opts.dirName),
    ...checkPlatform(config, m),
    ...checkMaxBatchSize(config, m),
    ...checkIO(config, m),
    ...checkInstanceGroups(config, m),
    ...checkDynamicBatching(config, m),
    ...checkSequenceBatching(config, m),
    ...checkResponseCache(config, m),
    ...checkEnsembleShape(config, m),
    ...checkEnsembleFlow(config, m),
  ];
}
