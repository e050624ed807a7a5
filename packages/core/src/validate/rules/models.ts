import type { ModelNode } from '../../graph/types.ts';
import type { Diagnostic } from '../diagnostic.ts';
import { effectiveModel, sameSettings, type EffectiveModel } from '../../config/nodeSettings.ts';
import { modelNodes, show, type Rule } from '../context.ts';
import { formatShape } from '../propagate.ts';
import { catalogueModel } from '../../catalogue/types.ts';

export const unknownModels: Rule = ({ graph, catalogue }) => {
  const out: Diagnostic[] = [];
  for (const n of modelNodes(graph)) {
    const m = catalogueModel(catalogue, n.params.model);
    if (!m) {
      out.push({
        code: 'unknown-model',
        severity: 'error',
        nodeId: n.id,
        message: `model '${n.params.model}' of ${show(n)} is not in the repository`,
        fix: `add '${n.params.model}' to the repository or pick another model`,
      });
    } else if (m.error) {
      out.push({
        code: 'model-unavailable',
        severity: 'error',
        nodeId: n.id,
        message: `model '${n.params.model}' cannot be loaded: ${m.error}`,
        fix: `fix '${n.params.model}' in the repository (its config or model file)`,
      });
    }
  }
  return out;
};

function settingsProblems(m: EffectiveModel): string[] {
  const problems: string[] = [];
  const mbs = m.maxBatchSize;
  if (!Number.isInteger(mbs) || mbs < 0) problems.push(`max_batch_size must be an integer ≥ 0 (got ${mbs})`);
  for (const g of m.instanceGroup ?? []) {
    if (g.count !== undefined && (!Number.isInteger(g.count) || g.count < 1))
      problems.push(`instance count must be an integer ≥ 1 (got ${g.count})`);
  }
  const preferred = [
    ...(m.dynamicBatching?.preferred_batch_size ?? []),
    ...(m.sequenceBatching?.oldest?.preferred_batch_size ?? []),
  ];
  for (const size of preferred) {
    if (!Number.isInteger(size) || size < 1) problems.push(`preferred batch size ${size} must be a positive integer`);
    else if (size > mbs) problems.push(`preferred batch size ${size} is larger than max_batch_size ${mbs}`);
  }
  if (m.dynamicBatching && m.sequenceBatching)
    problems.push('dynamic_batching and sequence_batching cannot both be set (Triton allows one scheduler)');
  return problems;
}

export const modelSettings: Rule = ({ graph, catalogue }) => {
  const out: Diagnostic[] = [];
  for (const n of modelNodes(graph)) {
    const m = effectiveModel(n, catalogue);
    if (!m) continue;
    for (const p of settingsProblems(m)) {
      out.push({
        code: 'invalid-model-settings',
        severity: 'error',
        nodeId: n.id,
        message: `${n.params.model}: ${p}`,
        fix: `edit the settings of ${show(n)}`,
      });
    }
  }
  return out;
};

export const conflictingSettings: Rule = ({ graph }) => {
  const out: Diagnostic[] = [];
  const first = new Map<string, ModelNode>();
  for (const n of modelNodes(graph)) {
    const prev = first.get(n.params.model);
    if (!prev) {
      first.set(n.params.model, n);
      continue;
    }
    if (sameSettings(prev.params.settings, n.params.settings)) continue;
    out.push({
      code: 'conflicting-model-settings',
      severity: 'error',
      nodeId: n.id,
      message: `${show(n)} and ${show(prev)} use model '${n.params.model}' with different settings, but Triton has one config per model`,
      fix: `give ${show(n)} the same settings as ${show(prev)}`,
    });
  }
  return out;
};

export const statefulModels: Rule = ({ graph, catalogue }) => {
  const out: Diagnostic[] = [];
  for (const n of modelNodes(graph)) {
    const m = effectiveModel(n, catalogue);
    const seq = m?.sequenceBatching;
    if (!m || !seq) continue;
    out.push({
      code: 'stateful-model',
      severity: 'warning',
      nodeId: n.id,
      message: `model '${n.params.model}' is sequence-batched: every request to this ensemble must carry sequence_id, sequence_start and sequence_end`,
      fix: 'send the sequence parameters from the client (the run panel does this for streams)',
    });
    if (m.maxBatchSize <= 0) continue;
    for (const s of seq.state ?? []) {
      if (!s.dims.includes(-1)) continue;
      out.push({
        code: 'state-batch-dim',
        severity: 'error',
        nodeId: n.id,
        port: s.input_name,
        message: `implicit state '${s.input_name}' of '${n.params.model}' has dims ${formatShape(s.dims)} with a variable dim that is not first, but with max_batch_size > 0 Triton puts the batch dimension first`,
        fix: `set max_batch_size: 0 on ${n.params.model}`,
      });
    }
  }
  return out;
};

export const decoupledGraph: Rule = ({ graph, catalogue }) => {
  const sources = graph.nodes.filter(
    (n) =>
      (n.kind === 'model' && effectiveModel(n, catalogue)?.decoupled) ||
      (n.kind === 'condition' && n.params.strategy === 'gate'),
  );
  if (sources.length === 0) return [];
  return [
    {
      code: 'decoupled-graph',
      severity: 'warning',
      nodeId: sources[0]!.id,
      message: `the ensemble is decoupled (because of ${sources.map(show).join(', ')}): Triton refuses HTTP /infer and unary gRPC for it`,
      fix: 'call it with gRPC streaming (ModelStreamInfer) or HTTP generate_stream; or pick the bls/error strategy for conditions',
    },
  ];
};
