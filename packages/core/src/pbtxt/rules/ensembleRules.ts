/**
 * Rules for one ensemble config on its own (TRITON.md §1.8, §2.1–§2.3; core
 * `ValidateEnsembleSchedulingConfig`, `BuildEnsembleGraph`).
 */
import type { Diagnostic } from '../../validate/diagnostic.ts';
import type { EnsembleStep, ModelConfig } from '../modelConfig.ts';
import { asList, asRecord, error, isEnsemble } from './util.ts';

/** The steps of an ensemble, tolerant of malformed JSON. */
export function stepsOf(config: ModelConfig): EnsembleStep[] {
  return asList<EnsembleStep>(asRecord(config.ensemble_scheduling).step);
}

const mapOf = (v: unknown): Record<string, string> => asRecord(v) as Record<string, string>;
const names = (ios: unknown): string[] => asList(ios).map((io) => String(io.name ?? '')).filter(Boolean);

export function checkEnsembleShape(config: ModelConfig, m: string): Diagnostic[] {
  const ens = isEnsemble(config);
  const has = config.ensemble_scheduling !== undefined;
  if (!ens) {
    return has ? [error('ensemble-scheduling-forbidden', `${m} has ensemble_scheduling but its platform is not ensemble`, 'remove ensemble_scheduling or set platform: "ensemble"')] : [];
  }
  const out: Diagnostic[] = [];
  if (!has) out.push(error('ensemble-scheduling-missing', `ensemble ${m} has no ensemble_scheduling`, 'add ensemble_scheduling { step [ … ] }'));
  if (config.optimization !== undefined) out.push(error('ensemble-optimization', `ensemble ${m} has optimization, which ensembles cannot have`, 'remove optimization'));
  if (asList(config.model_warmup).length > 0) {
    out.push(error('ensemble-warmup', `ensemble ${m} has model_warmup, which ensembles cannot have`, 'remove model_warmup (warm up the composing models)'));
  }
  if (has && stepsOf(config).length === 0) out.push(error('ensemble-steps-missing', `ensemble ${m} has no steps`, 'add at least one step'));
  return out;
}

function checkStep(step: EnsembleStep, k: number, m: string): Diagnostic[] {
  const out: Diagnostic[] = [];
  const label = `step ${k}${step.model_name ? ` ('${step.model_name}')` : ''} of ensemble ${m}`;
  if (!step.model_name) out.push(error('step-model-name-missing', `${label} has no model_name`, 'set model_name'));
  if (Object.keys(mapOf(step.input_map)).length === 0) out.push(error('step-input-map-missing', `${label} maps no inputs`, 'add an input_map entry'));
  if (Object.keys(mapOf(step.output_map)).length === 0) out.push(error('step-output-map-missing', `${label} maps no outputs`, 'add an output_map entry'));
  const v = step.model_version;
  if (v === undefined || v === 0 || v < -1) {
    const what = v === undefined ? 'omits model_version, which means version 0' : `asks for model_version ${v}`;
    out.push(error('step-model-version', `${label} ${what}; that version can never load`, 'set model_version: -1 (latest)'));
  }
  return out;
}

interface Flow {
  writers: Map<string, number[]>;
  readers: Map<string, number[]>;
}

function flowOf(steps: EnsembleStep[]): Flow {
  const writers = new Map<string, number[]>();
  const readers = new Map<string, number[]>();
  const add = (map: Map<string, number[]>, t: string, k: number): void => void map.set(t, [...(map.get(t) ?? []), k]);
  steps.forEach((s, k) => {
    for (const t of Object.values(mapOf(s.output_map))) add(writers, t, k);
    for (const t of new Set(Object.values(mapOf(s.input_map)))) add(readers, t, k);
  });
  return { writers, readers };
}

/** Steps that can never run: an input is never available (a cycle between steps). */
function unreachableSteps(steps: EnsembleStep[], inputs: Set<string>): number[] {
  const ready = new Set(inputs);
  const done = new Set<number>();
  for (let changed = true; changed; ) {
    changed = false;
    steps.forEach((s, k) => {
      if (done.has(k) || !Object.values(mapOf(s.input_map)).every((t) => ready.has(t))) return;
      done.add(k);
      changed = true;
      for (const t of Object.values(mapOf(s.output_map))) ready.add(t);
    });
  }
  return steps.map((_, k) => k).filter((k) => !done.has(k));
}

export function checkEnsembleFlow(config: ModelConfig, m: string): Diagnostic[] {
  if (!isEnsemble(config)) return [];
  const steps = stepsOf(config);
  const out: Diagnostic[] = steps.flatMap((s, k) => checkStep(s, k, m));
  const inputs = new Set(names(config.input));
  const outputs = new Set(names(config.output));
  const { writers, readers } = flowOf(steps);
  for (const [t, ks] of writers) {
    if (ks.length > 1) out.push(error('ensemble-tensor-multiple-writers', `ensemble tensor '${t}' of ${m} is written by ${ks.length} output_map entries (steps ${ks.join(', ')})`, `map only one step output to '${t}'`, t));
    else if (!readers.has(t) && !outputs.has(t)) out.push(error('ensemble-tensor-unused', `ensemble tensor '${t}' of ${m} is produced by step ${ks[0]} but nothing reads it`, `remove the output_map entry for '${t}' or consume it`, t));
  }
  for (const [t, ks] of readers) {
    if (!inputs.has(t) && !writers.has(t)) out.push(error('ensemble-tensor-unproduced', `ensemble tensor '${t}' of ${m} is read by step ${ks.join(', ')} but no step produces it and it is not an ensemble input`, `map a step output to '${t}' or add an ensemble input '${t}'`, t));
  }
  for (const t of inputs) if (!readers.has(t)) out.push(error('ensemble-input-unused', `input '${t}' of ensemble ${m} is not read by any step`, `map '${t}' to a step input or remove it`, t));
  for (const t of outputs) if (!writers.has(t)) out.push(error('ensemble-output-unwritten', `output '${t}' of ensemble ${m} is not written by any step`, `map a step output to '${t}'`, t));
  const available = (t: string): boolean => inputs.has(t) || writers.has(t);
  for (const k of unreachableSteps(steps, inputs)) {
    const step = steps[k]!;
    if (!Object.values(mapOf(step.input_map)).every(available)) continue;
    out.push(error('ensemble-step-unreachable', `step ${k} ('${step.model_name}') of ensemble ${m} can never run: its inputs depend on its own outputs`, 'break the cycle between the steps'));
  }
  return out;
}
