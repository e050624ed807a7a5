/**
 * Rules for one ensemble config on its own (as Triton core's `ValidateEnsembleSchedulingConfig`
 * and `BuildEnsembleGraph` check it).
 */
import type { Diagnostic } from '../../validate/diagnostic.ts';
import type { EnsembleStep, ModelConfig } from '../modelConfig.ts';
import { asList, asRecord, error, isEnsemble } from './util.ts';

/** The steps of an ensemble, tolerant of malformed JSON. */
export function stepsOf(config: ModelConfig): EnsembleStep[] {
  return asList<EnsembleStep>(asRecord(config.ensemble_scheduling).step);
}

const mapOf = (v: unknown): Record<string, string> => asRecord(v) as Record<string, string>;
const names = (ios: unknown): string[] =>
  asList(ios)
    .map((io) => String(io.name ?? ''))
    .filter(Boolean);

/** ensemble_scheduling only on, and required by, platform ensemble; no optimization or warm-up; at least one step. */
export function checkEnsembleShape(config: ModelConfig, m: string): Diagnostic[] {
  const ens = isEnsemble(config);
  const has = config.ensemble_scheduling !== undefined;
  const name = config.name || m;
  if (!ens) {
    return has
      ? [
          error(
            'ensemble-scheduling-forbidden',
            `ensemble scheduling cannot be set for model '${name}' whose platform is not ensemble`,
            'remove ensemble_scheduling or set platform: "ensemble"',
          ),
        ]
      : [];
  }
  const out: Diagnostic[] = [];
  if (!has)
    out.push(
      error(
        'ensemble-scheduling-missing',
        `ensemble scheduling must be set for ensemble ${name} whose platform is ensemble`,
        'add ensemble_scheduling { step [ … ] }',
      ),
    );
  if (config.optimization !== undefined)
    out.push(
      error(
        'ensemble-optimization',
        `optimization should not be specified for ensemble '${name}'`,
        'remove optimization',
      ),
    );
  if (asList(config.model_warmup).length > 0) {
    out.push(
      error(
        'ensemble-warmup',
        `model_warmup can not be specified for ensemble '${name}'`,
        'remove model_warmup (warm up the composing models)',
      ),
    );
  }
  if (has && stepsOf(config).length === 0)
    out.push(error('ensemble-steps-missing', `must specify 'step' for ensemble '${name}'`, 'add at least one step'));
  return out;
}

function checkStep(step: EnsembleStep, k: number, name: string): Diagnostic[] {
  const out: Diagnostic[] = [];
  const where = `in step ${k} of ensemble '${name}'`;
  if (typeof step.model_name !== 'string' || !step.model_name)
    out.push(error('step-model-name-missing', `must specify 'model_name' ${where}`, 'set model_name'));
  if (Object.keys(mapOf(step.input_map)).length === 0)
    out.push(error('step-input-map-missing', `must specify 'input_map' ${where}`, 'add an input_map entry'));
  if (Object.keys(mapOf(step.output_map)).length === 0)
    out.push(error('step-output-map-missing', `must specify 'output_map' ${where}`, 'add an output_map entry'));
  const v = step.model_version;
  if (v === undefined || v === 0 || v < -1) {
    const what = v === undefined ? 'omits model_version, which means version 0' : `asks for model_version ${v}`;
    out.push(
      error(
        'step-model-version',
        `step ${k}${step.model_name ? ` ('${step.model_name}')` : ''} of ensemble '${name}' ${what}; that version can never load`,
        'set model_version: -1 (latest)',
      ),
    );
  }
  return out;
}

/** The ensemble's data flow as Triton builds it: each step output depends on every input of its step. */
interface TensorNode {
  written: boolean;
  prev: Set<string>;
  next: Set<string>;
  readBy: number[];
}

function buildGraph(steps: EnsembleStep[], name: string, out: Diagnostic[]): Map<string, TensorNode> {
  const nodes = new Map<string, TensorNode>();
  const node = (t: string): TensorNode => {
    let n = nodes.get(t);
    if (!n) nodes.set(t, (n = { written: false, prev: new Set(), next: new Set(), readBy: [] }));
    return n;
  };
  steps.forEach((s, k) => {
    const outs = Object.values(mapOf(s.output_map));
    for (const t of outs) {
      const n = node(t);
      if (n.written)
        out.push(
          error(
            'ensemble-tensor-multiple-writers',
            `ensemble tensor '${t}' can appear in an output map only once for ensemble '${name}' step ${k}`,
            `map only one step output to '${t}'`,
            t,
          ),
        );
      n.written = true;
    }
    for (const t of Object.values(mapOf(s.input_map))) {
      const n = node(t);
      n.readBy.push(k);
      for (const o of outs) {
        node(o).prev.add(t);
        n.next.add(o);
      }
    }
  });
  return nodes;
}

function readyTensors(nodes: Map<string, TensorNode>, inputs: string[]): Set<string> {
  const ready = new Set(inputs.filter((t) => nodes.has(t)));
  const queue = [...ready];
  while (queue.length) {
    for (const next of nodes.get(queue.shift()!)!.next) {
      if (ready.has(next) || ![...nodes.get(next)!.prev].every((p) => ready.has(p))) continue;
      ready.add(next);
      queue.push(next);
    }
  }
  return ready;
}

/** The first not-ready tensor upstream of `t`, following Triton's walk (first not-ready predecessor). */
function notReadySource(t: string, nodes: Map<string, TensorNode>, ready: Set<string>): string {
  let last = t;
  const seen = new Set<string>();
  for (let prev = [...nodes.get(t)!.prev]; prev.length;) {
    const p = prev.find((x) => !ready.has(x) && !seen.has(x));
    if (p === undefined) break;
    seen.add(p);
    last = p;
    prev = [...nodes.get(p)!.prev];
  }
  return last;
}

/**
 * The ensemble's data flow (core `BuildEnsembleGraph` and its readiness walk): every step names its
 * model and maps, each tensor is written once, inputs are used, outputs are written, nothing is unused.
 */
export function checkEnsembleFlow(config: ModelConfig, m: string): Diagnostic[] {
  if (!isEnsemble(config)) return [];
  const name = config.name || m;
  const steps = stepsOf(config);
  const out: Diagnostic[] = steps.flatMap((s, k) => checkStep(s, k, name));
  const inputs = names(config.input);
  const outputs = new Set(names(config.output));
  const nodes = buildGraph(steps, name, out);
  for (const t of inputs) {
    if (!nodes.has(t) || nodes.get(t)!.next.size === 0)
      out.push(
        error(
          'ensemble-input-unused',
          `ensemble input '${t}' for ensemble ${name}' is not used`,
          `map '${t}' to a step input or remove it`,
          t,
        ),
      );
  }
  const ready = readyTensors(nodes, inputs);
  for (const t of outputs) {
    const n = nodes.get(t);
    if (!n)
      out.push(
        error(
          'ensemble-output-unwritten',
          `ensemble output '${t}' for ensemble ${name}' is not used`,
          `map a step output to '${t}'`,
          t,
        ),
      );
    else if (!ready.has(t)) {
      const source = notReadySource(t, nodes, ready);
      const why = source === t ? '' : `: at least one of its depending tensors, '${source}', is not connected`;
      out.push(
        error(
          'ensemble-output-unwritten',
          `output '${t}' for ensemble '${name}' is not written${why}`,
          source === t ? `map a step output to '${t}'` : `produce '${source}' from a step or an ensemble input`,
          t,
        ),
      );
    }
  }
  const inputSet = new Set(inputs);
  for (const [t, n] of nodes) {
    if (outputs.has(t) || (ready.has(t) && n.next.size > 0) || inputSet.has(t)) continue;
    const unused = `ensemble tensor '${t}' is unused in ensemble '${name}'`;
    if (!n.written) {
      out.push(
        error(
          'ensemble-tensor-unproduced',
          `${unused}: step ${n.readBy.join(', ')} reads it but no step produces it and it is not an ensemble input`,
          `map a step output to '${t}' or add an ensemble input '${t}'`,
          t,
        ),
      );
    } else if (ready.has(t)) {
      out.push(
        error(
          'ensemble-tensor-unused',
          `${unused}: it is produced but nothing reads it`,
          `remove the output_map entry for '${t}' or consume it`,
          t,
        ),
      );
    } else if ([...n.prev].every((p) => inputSet.has(p) || nodes.get(p)!.written)) {
      out.push(
        error(
          'ensemble-step-unreachable',
          `${unused}: it can never be computed, its inputs depend on its own outputs`,
          'break the cycle between the steps',
          t,
        ),
      );
    }
  }
  return out;
}
