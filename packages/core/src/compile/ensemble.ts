import type { EnsembleStep, ModelConfig, ModelInput, ModelOutput } from '../pbtxt/modelConfig.ts';
import { toConfigType } from '../tensor/dtype.ts';
import { tensorInto, type EnsemblePlan } from './plan.ts';

/**
 * The ensemble's ModelConfig: inputs/outputs from the I/O nodes, one step per step node in
 * topological order (`model_version: -1`), `input_map` key = step-model input, value = ensemble
 * tensor; `output_map` only for consumed outputs. Triton marks the ensemble decoupled itself when a
 * step is decoupled (it overwrites `model_transaction_policy`), so the compiler does not set it.
 * @example ensembleConfig(planEnsemble(buildGraphInfo(graph, catalogue))).ensemble_scheduling?.step
 */
export function ensembleConfig(plan: EnsemblePlan): ModelConfig {
  const { graph } = plan.info;
  const input: ModelInput[] = [];
  const output: ModelOutput[] = [];
  for (const n of graph.nodes) {
    if (n.kind === 'input') {
      input.push({
        name: n.params.name,
        data_type: toConfigType(n.params.datatype),
        dims: [...n.params.dims],
        ...(n.params.optional ? { optional: true } : {}),
      });
    } else if (n.kind === 'output') {
      output.push({ name: n.params.name, data_type: toConfigType(n.params.datatype), dims: [...n.params.dims] });
    }
  }
  const step: EnsembleStep[] = [];
  for (const s of plan.steps) {
    const input_map: Record<string, string> = {};
    for (const p of s.inputs) {
      const t = tensorInto(plan, s.node.id, p.port);
      if (t !== null) input_map[p.name] = t;
    }
    const output_map: Record<string, string> = {};
    for (const p of s.outputs) {
      const t = plan.tensors.get(`${s.node.id}:${p.port}`);
      if (t !== undefined) output_map[p.name] = t;
    }
    // A step with no used output is validation's `step-without-outputs`.
    step.push({ model_name: s.modelName, model_version: -1, input_map, output_map });
  }
  const config: ModelConfig = {
    name: graph.name,
    platform: 'ensemble',
    max_batch_size: graph.maxBatchSize,
    input,
    output,
    ensemble_scheduling: { step },
  };
  return config;
}
