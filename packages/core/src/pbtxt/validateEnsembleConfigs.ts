/**
 * Triton's cross-model ensemble checks (TRITON.md §2.4; core `ensemble_utils.cc`,
 * `model_repository_manager.cc`): composing models exist, no cycles, batch sizes, tensor types and
 * shapes agree, maps name real inputs/outputs, and no step joins different decoupled sources.
 */
import type { Diagnostic } from '../validate/diagnostic.ts';
import type { EnsembleStep, ModelConfig } from './modelConfig.ts';
import { checkTensorTypes } from './rules/tensorTypes.ts';
import { stepsOf } from './rules/ensembleRules.ts';
import { asList, asRecord, error, isDecoupled, isEnsemble } from './rules/util.ts';

type Configs = Record<string, ModelConfig>;
const mapOf = (v: unknown): Record<string, string> => asRecord(v) as Record<string, string>;
const own = (configs: Configs, name: string): ModelConfig | undefined =>
  Object.prototype.hasOwnProperty.call(configs, name) ? configs[name] : undefined;

/**
 * True when the model is decoupled, or is an ensemble with a decoupled step anywhere inside
 * (Triton then makes the ensemble decoupled itself, TRITON.md §2.4).
 * @example isEnsembleDecoupled('e', { e: ensembleOf('gen'), gen: { model_transaction_policy: { decoupled: true } } }) === true
 */
export function isEnsembleDecoupled(name: string, configs: Configs, seen: Set<string> = new Set()): boolean {
  const config = own(configs, name);
  if (!config || seen.has(name)) return false;
  if (isDecoupled(config)) return true;
  if (!isEnsemble(config)) return false;
  seen.add(name);
  return stepsOf(config).some((s) => isEnsembleDecoupled(s.model_name, configs, seen));
}

function checkCycles(configs: Configs): Diagnostic[] {
  const out: Diagnostic[] = [];
  const state = new Map<string, 'active' | 'done'>();
  const reported = new Set<string>();
  const visit = (name: string, path: string[]): void => {
    state.set(name, 'active');
    for (const dep of new Set(stepsOf(own(configs, name) ?? {}).map((s) => s.model_name))) {
      const c = own(configs, dep);
      if (!c || !isEnsemble(c)) continue;
      if (state.get(dep) === 'active') {
        const cycle = [...path.slice(path.indexOf(dep)), dep];
        const key = [...new Set(cycle)].sort().join('\0');
        if (!reported.has(key)) {
          reported.add(key);
          out.push(error('ensemble-cycle', `circular dependency between ensembles: ${cycle.join(' -> ')}`, `remove '${cycle[cycle.length - 2]}' from the steps of '${cycle[cycle.length - 3] ?? dep}' or restructure the ensembles`));
        }
      } else if (!state.has(dep)) visit(dep, [...path, dep]);
    }
    state.set(name, 'done');
  };
  for (const name of Object.keys(configs).sort()) {
    if (!state.has(name) && isEnsemble(own(configs, name) ?? {})) visit(name, [name]);
  }
  return out;
}

function checkSteps(e: string, ens: ModelConfig, configs: Configs): Diagnostic[] {
  const out: Diagnostic[] = [];
  const steps = stepsOf(ens);
  const missing = [...new Set(steps.map((s) => s.model_name).filter((n) => n && !own(configs, n)))];
  if (missing.length) {
    out.push(error('ensemble-model-missing', `ensemble '${e}' uses models that are not in the repository: ${missing.join(', ')}`, 'add the models to the repository or remove those steps'));
  }
  const mbs = ens.max_batch_size ?? 0;
  steps.forEach((step, k) => {
    const model = own(configs, step.model_name);
    if (!model) return;
    const mmbs = model.max_batch_size ?? 0;
    if (mmbs > 0 && mmbs < mbs) {
      out.push(error('ensemble-batch-size', `ensemble '${e}' allows batch size ${mbs} but its step ${k} model '${step.model_name}' allows only ${mmbs}`, `lower max_batch_size of '${e}' to ${mmbs} or raise it on '${step.model_name}'`));
    }
    out.push(...checkMaps(e, step, k, model));
  });
  return out;
}

function checkMaps(e: string, step: EnsembleStep, k: number, model: ModelConfig): Diagnostic[] {
  if (model.input === undefined && model.output === undefined) return []; // nothing declared: auto-complete decides
  const out: Diagnostic[] = [];
  const m = step.model_name;
  const inputs = asList(model.input);
  const outputs = new Set(asList(model.output).map((o) => String(o.name)));
  const inputMap = mapOf(step.input_map);
  for (const key of Object.keys(inputMap)) {
    if (!inputs.some((i) => i.name === key)) out.push(error('ensemble-map-unknown-input', `step ${k} of ensemble '${e}' maps '${inputMap[key]}' to '${key}', which is not an input of '${m}'`, `use one of: ${inputs.map((i) => String(i.name)).join(', ') || '(none)'}`, key));
  }
  for (const key of Object.keys(mapOf(step.output_map))) {
    if (!outputs.has(key)) out.push(error('ensemble-map-unknown-output', `step ${k} of ensemble '${e}' reads '${key}', which is not an output of '${m}'`, `use one of: ${[...outputs].join(', ') || '(none)'}`, key));
  }
  for (const input of inputs) {
    const name = String(input.name ?? '');
    if (name && !(name in inputMap) && input.optional !== true) {
      out.push(error('ensemble-input-unmapped', `input '${name}' of '${m}' (step ${k} of ensemble '${e}') is not mapped to any ensemble tensor`, `add input_map { key: "${name}" value: "<tensor>" }`, name));
    }
  }
  return out;
}

/** Steps in an order where each runs after its producers (steps in a cycle are left out). */
function runOrder(steps: EnsembleStep[], inputs: string[]): number[] {
  const ready = new Set(inputs);
  const order: number[] = [];
  for (let changed = true; changed; ) {
    changed = false;
    steps.forEach((s, k) => {
      if (order.includes(k) || !Object.values(mapOf(s.input_map)).every((t) => ready.has(t))) return;
      order.push(k);
      changed = true;
      for (const t of Object.values(mapOf(s.output_map))) ready.add(t);
    });
  }
  return order;
}

const ENSEMBLE_INPUTS = 'the ensemble inputs';

function checkDecoupledJoins(e: string, ens: ModelConfig, configs: Configs): Diagnostic[] {
  const out: Diagnostic[] = [];
  const steps = stepsOf(ens);
  const inputs = asList(ens.input).map((i) => String(i.name ?? ''));
  const origin = new Map<string, string>(inputs.map((t) => [t, ENSEMBLE_INPUTS]));
  for (const k of runOrder(steps, inputs)) {
    const step = steps[k]!;
    const sources = [...new Set(Object.values(mapOf(step.input_map)).map((t) => origin.get(t) ?? ENSEMBLE_INPUTS))];
    if (sources.length > 1) {
      out.push(error('ensemble-decoupled-join', `step ${k} ('${step.model_name}') of ensemble '${e}' joins tensors from different decoupled sources: ${sources.join(' and ')}`,
        'feed the step from one decoupled source only (e.g. pass the other tensors through the decoupled model)'));
    }
    const mine = isEnsembleDecoupled(step.model_name, configs) ? `decoupled step ${k} ('${step.model_name}')` : (sources[0] ?? ENSEMBLE_INPUTS);
    for (const t of Object.values(mapOf(step.output_map))) origin.set(t, mine);
  }
  return out;
}

/**
 * Checks every ensemble among `configs` against the models it uses (configs keyed by model name).
 * @example validateEnsembleConfigs({ e: { name: 'e', platform: 'ensemble', ensemble_scheduling: { step: [{ model_name: 'gone', model_version: -1 }] } } })[0]?.code === 'ensemble-model-missing'
 */
export function validateEnsembleConfigs(configs: Configs): Diagnostic[] {
  const out = checkCycles(configs);
  for (const e of Object.keys(configs).sort()) {
    const ens = own(configs, e);
    if (!ens || !isEnsemble(ens)) continue;
    out.push(...checkSteps(e, ens, configs), ...checkTensorTypes(e, ens, configs), ...checkDecoupledJoins(e, ens, configs));
  }
  return out;
}
