/**
 * Triton's cross-model ensemble checks (as its core's `ensemble_utils.cc` and
 * `model_repository_manager.cc`): composing models exist, no cycles, batch sizes, tensor types and
 * shapes agree, maps name real inputs/outputs, and no step joins different decoupled sources.
 */
import type { Diagnostic } from '../validate/diagnostic.ts';
import type { EnsembleStep, ModelConfig } from './modelConfig.ts';
import { checkTensorTypes } from './rules/tensorTypes.ts';
import { stepsOf } from './rules/ensembleRules.ts';
import { servedVersions } from './rules/modelRules.ts';
import { asList, asRecord, error, isDecoupled, isEnsemble } from './rules/util.ts';

type Configs = Record<string, ModelConfig>;
const mapOf = (v: unknown): Record<string, string> => asRecord(v) as Record<string, string>;
const own = (configs: Configs, name: string): ModelConfig | undefined =>
  Object.prototype.hasOwnProperty.call(configs, name) ? configs[name] : undefined;

/**
 * True when the model is decoupled, or is an ensemble with a decoupled step anywhere inside
 * (Triton then makes the ensemble decoupled itself: a client must stream its responses).
 * @example isEnsembleDecoupled('e', { e: ensembleOf('gen'), gen: { model_transaction_policy: { decoupled: true } } }) === true
 */
export function isEnsembleDecoupled(name: string, configs: Configs): boolean {
  // A loop over a stack, not recursion: deeply nested ensembles must not exhaust the call stack.
  const seen = new Set<string>();
  const todo = [name];
  while (todo.length > 0) {
    const next = todo.pop()!;
    const config = own(configs, next);
    if (!config || seen.has(next)) continue;
    if (isDecoupled(config)) return true;
    if (!isEnsemble(config)) continue;
    seen.add(next);
    for (const s of stepsOf(config)) todo.push(s.model_name);
  }
  return false;
}

/**
 * Every model `isEnsembleDecoupled` holds true for, found at once: decoupled models, then each ensemble
 * with a step among them, and so on outwards (asking per step would walk the nesting again each time).
 */
function decoupledModels(configs: Configs): Set<string> {
  const usedBy = new Map<string, string[]>();
  const found = new Set<string>();
  for (const name of Object.keys(configs)) {
    const config = own(configs, name)!;
    if (isDecoupled(config)) found.add(name);
    if (!isEnsemble(config)) continue;
    for (const s of stepsOf(config)) {
      const outers = usedBy.get(s.model_name);
      if (outers) outers.push(name);
      else usedBy.set(s.model_name, [name]);
    }
  }
  const todo = [...found];
  while (todo.length > 0) {
    for (const outer of usedBy.get(todo.pop()!) ?? []) {
      if (found.has(outer)) continue;
      found.add(outer);
      todo.push(outer);
    }
  }
  return found;
}

function checkCycles(configs: Configs): Diagnostic[] {
  const out: Diagnostic[] = [];
  const state = new Map<string, 'active' | 'done'>();
  const reported = new Set<string>();
  const nestedEnsembles = (name: string): string[] =>
    [...new Set(stepsOf(own(configs, name) ?? {}).map((s) => s.model_name))].filter((dep) => {
      const c = own(configs, dep);
      return c !== undefined && isEnsemble(c);
    });
  const report = (cycle: string[], dep: string): void => {
    const key = [...new Set(cycle)].sort().join('\0');
    if (reported.has(key)) return;
    reported.add(key);
    out.push(
      error(
        'ensemble-cycle',
        `circular dependency between ensembles: ${cycle[0]} -> ... -> ${cycle[cycle.length - 2]} -> ${cycle[0]} (${cycle.join(' -> ')})`,
        `remove '${cycle[cycle.length - 2]}' from the steps of '${cycle[cycle.length - 3] ?? dep}' or restructure the ensembles`,
      ),
    );
  };
  // Depth-first with an explicit stack (`path` holds the active ensembles), so deeply nested ensembles
  // cannot exhaust the call stack.
  for (const root of Object.keys(configs).sort()) {
    if (state.has(root) || !isEnsemble(own(configs, root) ?? {})) continue;
    const path = [root];
    const frames = [{ deps: nestedEnsembles(root), next: 0 }];
    state.set(root, 'active');
    while (frames.length > 0) {
      const frame = frames[frames.length - 1]!;
      const dep = frame.deps[frame.next++];
      if (dep === undefined) {
        state.set(path.pop()!, 'done');
        frames.pop();
      } else if (state.get(dep) === 'active') report([...path.slice(path.indexOf(dep)), dep], dep);
      else if (!state.has(dep)) {
        state.set(dep, 'active');
        path.push(dep);
        frames.push({ deps: nestedEnsembles(dep), next: 0 });
      }
    }
  }
  return out;
}

function checkSteps(e: string, ens: ModelConfig, configs: Configs, versions: Versions | undefined): Diagnostic[] {
  const out: Diagnostic[] = [];
  const steps = stepsOf(ens);
  const missing = [
    ...new Set(steps.map((s) => s.model_name).filter((n) => typeof n === 'string' && n && !own(configs, n))),
  ];
  if (missing.length) {
    out.push(
      error(
        'ensemble-model-missing',
        `ensemble ${e} contains models that are not available or ambiguous: ${missing.join(', ')}`,
        'add the models to the repository or remove those steps',
      ),
    );
  }
  out.push(...checkRequiredVersions(e, steps, configs, versions));
  const mbs = ens.max_batch_size ?? 0;
  steps.forEach((step, k) => {
    const model = own(configs, step.model_name);
    if (!model) return;
    const mmbs = model.max_batch_size ?? 0;
    if (mmbs > 0 && mmbs < mbs) {
      out.push(
        error(
          'ensemble-batch-size',
          `ensemble ${e} allows maximum batch size ${mbs}, but it contains model ${step.model_name} which only allows maximum batch size to be ${mmbs} (step ${k})`,
          `lower max_batch_size of '${e}' to ${mmbs} or raise it on '${step.model_name}'`,
        ),
      );
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
    if (!inputs.some((i) => i.name === key))
      out.push(
        error(
          'ensemble-map-unknown-input',
          `in ensemble ${e}, ensemble tensor ${inputMap[key]} is mapping to non-existing input ${key} in model ${m} (step ${k})`,
          `use one of: ${inputs.map((i) => String(i.name)).join(', ') || '(none)'}`,
          key,
        ),
      );
  }
  for (const key of Object.keys(mapOf(step.output_map))) {
    if (!outputs.has(key))
      out.push(
        error(
          'ensemble-map-unknown-output',
          `in ensemble ${e}, ensemble tensor ${mapOf(step.output_map)[key]} is mapped from non-existing output ${key} in model ${m} (step ${k})`,
          `use one of: ${[...outputs].join(', ') || '(none)'}`,
          key,
        ),
      );
  }
  for (const input of inputs) {
    const name = String(input.name ?? '');
    if (name && !(name in inputMap) && input.optional !== true) {
      out.push(
        error(
          'ensemble-input-unmapped',
          `in ensemble ${e}, input ${name} in model ${m} is not mapped to any ensemble tensors (step ${k})`,
          `add input_map { key: "${name}" value: "<tensor>" }`,
          name,
        ),
      );
    }
  }
  return out;
}

/**
 * Decoupled labels as core `ValidateEnsembleConfig` propagates them: a tensor from a decoupled step
 * gets a fresh label, any other step output takes its inputs' label, and a step (or the ensemble's
 * outputs, read together by the ensemble itself) whose inputs carry different labels is refused.
 */
function checkDecoupledJoins(e: string, ens: ModelConfig, decoupled: ReadonlySet<string>): Diagnostic[] {
  const steps = stepsOf(ens);
  const label = new Map<string, number>(asList(ens.input).map((i) => [String(i.name ?? ''), 0]));
  const done = new Set<number>();
  let fresh = 0;
  const out: Diagnostic[] = [];
  const join = (reader: string, tensors: string[], fix: string): number | undefined => {
    const labels = new Set(tensors.map((t) => label.get(t)));
    if (labels.size <= 1) return [...labels][0];
    out.push(
      error(
        'ensemble-decoupled-join',
        `in ensemble ${e}, step of model '${reader}' receives inputs originated from different decoupled models`,
        fix,
      ),
    );
    return undefined;
  };
  for (let changed = true; changed && out.length === 0;) {
    changed = false;
    steps.forEach((s, k) => {
      const ins = Object.values(mapOf(s.input_map));
      if (done.has(k) || out.length > 0 || !ins.every((t) => label.has(t))) return;
      done.add(k);
      changed = true;
      const mine =
        join(
          s.model_name,
          ins,
          'feed the step from one decoupled source only (e.g. pass the other tensors through the decoupled model)',
        ) ?? 0;
      const outLabel = decoupled.has(s.model_name) ? ++fresh : mine;
      for (const t of Object.values(mapOf(s.output_map))) if (!label.has(t)) label.set(t, outLabel);
    });
  }
  const outs = asList(ens.output).map((o) => String(o.name ?? ''));
  if (out.length === 0 && outs.every((t) => label.has(t)))
    join(e, outs, 'take every ensemble output from the same decoupled step (or from steps after it)');
  return out;
}

type Versions = Record<string, readonly number[]>;

/** Each step's `model_version` must be one its model serves (core `CheckEnsembleDependencies`). */
function checkRequiredVersions(
  e: string,
  steps: EnsembleStep[],
  configs: Configs,
  versions: Versions | undefined,
): Diagnostic[] {
  if (!versions) return [];
  const out: Diagnostic[] = [];
  const reported = new Set<string>();
  for (const s of steps) {
    const model = own(configs, s.model_name);
    const present = Object.prototype.hasOwnProperty.call(versions, s.model_name) ? versions[s.model_name] : undefined;
    if (!model || !present) continue;
    const served = servedVersions(model, present);
    const v = s.model_version ?? 0;
    const key = `${s.model_name}\0${v}`;
    if (served.length === 0 || v === -1 || served.includes(v) || reported.has(key)) continue;
    reported.add(key);
    out.push(
      error(
        'ensemble-version-not-loaded',
        `ensemble '${e}' depends on '${s.model_name}' whose required version ${v} is not loaded (it serves ${served.join(', ')})`,
        `set model_version: -1 or one of ${served.join(', ')}, or change the version_policy of '${s.model_name}'`,
      ),
    );
  }
  return out;
}

/**
 * Checks every ensemble among `configs` against the models it uses (configs keyed by model name).
 * With `versions` (each model's numeric version directories), a step's `model_version` must be one
 * its model serves under its version_policy.
 * @example validateEnsembleConfigs({ e: { name: 'e', platform: 'ensemble', ensemble_scheduling: { step: [{ model_name: 'gone', model_version: -1 }] } } })[0]?.code === 'ensemble-model-missing'
 */
export function validateEnsembleConfigs(configs: Configs, versions?: Versions): Diagnostic[] {
  const out = checkCycles(configs);
  const decoupled = decoupledModels(configs);
  for (const e of Object.keys(configs).sort()) {
    const ens = own(configs, e);
    if (!ens || !isEnsemble(ens)) continue;
    out.push(
      ...checkSteps(e, ens, configs, versions),
      ...checkTensorTypes(e, ens, configs),
      ...checkDecoupledJoins(e, ens, decoupled),
    );
  }
  return out;
}
