/**
 * Data type and shape agreement of every ensemble tensor across the ensemble's own I/O and the step
 * models that produce and consume it (core `ValidateTensorConsistency`). Shapes are full shapes
 * (batch dim included when max_batch_size > 0); `-1` matches anything.
 */
import { fullShape } from '../../catalogue/types.ts';
import type { Diagnostic } from '../../validate/diagnostic.ts';
import type { ModelConfig } from '../modelConfig.ts';
import { stepsOf } from './ensembleRules.ts';
import { asList, asRecord, error, formatDims } from './util.ts';

interface Seen {
  dtype: string;
  shape: number[];
  from: string;
}

type Configs = Record<string, ModelConfig>;

function ioSpec(ios: unknown, name: string, mbs: number, useReshape: boolean): { dtype: string; shape: number[] } | undefined {
  const io = asList(ios).find((x) => x.name === name);
  if (!io) return undefined;
  const reshape = useReshape && io.reshape !== undefined ? asList<number>(asRecord(io.reshape).shape) : undefined;
  return { dtype: String(io.data_type ?? ''), shape: fullShape(reshape ?? asList<number>(io.dims), mbs) };
}

/** Merges `b` into `a` when compatible (fixed dims refine -1); undefined when they conflict. */
function mergeShapes(a: number[], b: number[]): number[] | undefined {
  if (a.length !== b.length) return undefined;
  const merged: number[] = [];
  for (let i = 0; i < a.length; i++) {
    const x = a[i]!;
    const y = b[i]!;
    if (x !== -1 && y !== -1 && x !== y) return undefined;
    merged.push(x === -1 ? y : x);
  }
  return merged;
}

function collect(e: string, ens: ModelConfig, configs: Configs): Map<string, Seen[]> {
  const seen = new Map<string, Seen[]>();
  const add = (t: string, spec: { dtype: string; shape: number[] } | undefined, from: string): void => {
    if (spec && spec.dtype) seen.set(t, [...(seen.get(t) ?? []), { ...spec, from }]);
  };
  const mbs = ens.max_batch_size ?? 0;
  for (const io of [...asList(ens.input), ...asList(ens.output)]) {
    const t = String(io.name ?? '');
    add(t, ioSpec([io], t, mbs, true), `ensemble '${e}'`);
  }
  for (const step of stepsOf(ens)) {
    const model = Object.prototype.hasOwnProperty.call(configs, step.model_name) ? configs[step.model_name] : undefined;
    if (!model) continue;
    const mmbs = model.max_batch_size ?? 0;
    for (const [key, t] of Object.entries(asRecord(step.input_map))) add(String(t), ioSpec(model.input, key, mmbs, false), `model '${step.model_name}'`);
    for (const [key, t] of Object.entries(asRecord(step.output_map))) add(String(t), ioSpec(model.output, key, mmbs, false), `model '${step.model_name}'`);
  }
  return seen;
}

export function checkTensorTypes(e: string, ens: ModelConfig, configs: Configs): Diagnostic[] {
  const out: Diagnostic[] = [];
  for (const [t, all] of collect(e, ens, configs)) {
    const first = all[0]!;
    let shape = first.shape;
    for (const s of all.slice(1)) {
      if (s.dtype !== first.dtype) {
        out.push(error('ensemble-dtype-mismatch', `in ensemble '${e}', tensor '${t}' is ${first.dtype} for ${first.from} but ${s.dtype} for ${s.from}`, `make both sides use the same data type (or convert in between)`, t));
        break;
      }
      const merged = mergeShapes(shape, s.shape);
      if (!merged) {
        out.push(error('ensemble-shape-mismatch', `in ensemble '${e}', tensor '${t}' has shape ${formatDims(shape)} for ${first.from} but ${formatDims(s.shape)} for ${s.from}`, 'make the shapes agree (-1 matches any size); check max_batch_size on both sides', t));
        break;
      }
      shape = merged;
    }
  }
  return out;
}
