/**
 * Data type and shape agreement of every ensemble tensor across the ensemble's own I/O and the step
 * models that produce and consume it (core `ValidateTensorConsistency`); `-1` matches anything.
 */
import { fullShape } from '../../catalogue/types.ts';
import type { Diagnostic } from '../../validate/diagnostic.ts';
import type { ModelConfig } from '../modelConfig.ts';
import { stepsOf } from './ensembleRules.ts';
import { asList, asRecord, error } from './util.ts';

interface Seen {
  dtype: string;
  /** Dims as declared (reshape for the ensemble's own I/O), without the batch dim. */
  dims: number[];
  /** With the batch dim when the declaring model batches. */
  full: number[];
  from: string;
}

type Configs = Record<string, ModelConfig>;

function seen(io: Record<string, unknown>, batching: boolean, useReshape: boolean, from: string): Seen {
  const reshape = useReshape && io.reshape !== undefined ? asList<number>(asRecord(io.reshape).shape) : undefined;
  const dims = reshape ?? asList<number>(io.dims);
  return { dtype: String(io.data_type ?? ''), dims, full: fullShape(dims, batching ? 1 : 0), from };
}

/** Same rank and each dim equal or -1 on either side (core `CompareDimsWithWildcard`). */
function dimsAgree(a: number[], b: number[]): boolean {
  return a.length === b.length && a.every((x, i) => x === -1 || b[i] === -1 || x === b[i]);
}

const show = (dims: number[]): string => `[${dims.join(',')}]`;

/**
 * Every ensemble tensor's declarations in Triton's order (the ensemble's inputs, outputs, then each
 * step's inputs and outputs); each is compared with the first, as core `ValidateTensorMapping` does.
 */
function collect(e: string, ens: ModelConfig, configs: Configs): Map<string, Seen[]> {
  const all = new Map<string, Seen[]>();
  const add = (t: string, s: Seen): void => void (s.dtype && all.set(t, [...(all.get(t) ?? []), s]));
  const batching = (ens.max_batch_size ?? 0) > 0;
  for (const io of [...asList(ens.input), ...asList(ens.output)])
    add(String(io.name ?? ''), seen(io, batching, true, e));
  for (const step of stepsOf(ens)) {
    const model = Object.prototype.hasOwnProperty.call(configs, step.model_name) ? configs[step.model_name] : undefined;
    if (!model) continue;
    const mb = (model.max_batch_size ?? 0) > 0;
    const inputMap = asRecord(step.input_map);
    for (const io of asList(model.input)) {
      const t = inputMap[String(io.name ?? '')];
      if (typeof t === 'string') add(t, seen(io, mb, false, step.model_name));
    }
    for (const [key, t] of Object.entries(asRecord(step.output_map))) {
      const io = asList(model.output).find((o) => o.name === key);
      if (io) add(String(t), seen(io, mb, false, step.model_name));
    }
  }
  return all;
}

/**
 * Data type and shape agreement of each ensemble tensor. Shapes agree when either the declared dims
 * or the full dims (batch dim included) agree, so a non-batching `[-1, 16]` meets a batching `[16]`.
 */
export function checkTensorTypes(e: string, ens: ModelConfig, configs: Configs): Diagnostic[] {
  const out: Diagnostic[] = [];
  for (const [t, [first, ...rest]] of collect(e, ens, configs)) {
    const prefix = `in ensemble ${e}, ensemble tensor ${t}: `;
    for (const s of rest) {
      if (s.dtype !== first!.dtype) {
        out.push(
          error(
            'ensemble-dtype-mismatch',
            `${prefix}inconsistent data type: ${first!.dtype} is inferred from model ${first!.from} while ${s.dtype} is inferred from model ${s.from}`,
            'make both sides use the same data type (or convert in between)',
            t,
          ),
        );
        break;
      }
      if (!dimsAgree(first!.dims, s.dims) && !dimsAgree(first!.full, s.full)) {
        out.push(
          error(
            'ensemble-shape-mismatch',
            `${prefix}inconsistent shape: ${show(first!.full)} is inferred from model ${first!.from} while ${show(s.full)} is inferred from model ${s.from}`,
            'make the shapes agree (-1 matches any size); check max_batch_size on both sides',
            t,
          ),
        );
        break;
      }
    }
  }
  return out;
}
