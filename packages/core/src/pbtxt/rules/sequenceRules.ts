/**
 * Single-config rules for sequence batching: control tensors, implicit state and its initial values, the
 * strategies' own settings (as Triton core's `ValidateModelConfig` and `GetBooleanSequenceControlProperties`
 * check them).
 */
import type { Diagnostic } from '../../validate/diagnostic.ts';
import type { ModelConfig } from '../modelConfig.ts';
import { checkPreferred } from './schedulingRules.ts';
import { asList, asRecord, error, formatDims } from './util.ts';

const BOOLEAN_KINDS = new Set(['CONTROL_SEQUENCE_START', 'CONTROL_SEQUENCE_END', 'CONTROL_SEQUENCE_READY']);
const CORRID_TYPES = new Set(['TYPE_UINT64', 'TYPE_INT64', 'TYPE_UINT32', 'TYPE_INT32', 'TYPE_STRING']);
const FORMS = ['int32_false_true', 'fp32_false_true', 'bool_false_true'] as const;

function checkControl(c: Record<string, unknown>, tensor: string, name: string): Diagnostic[] {
  const kind = typeof c.kind === 'string' ? c.kind : 'CONTROL_SEQUENCE_START';
  const given = FORMS.filter((f) => asList(c[f]).length > 0);
  const where = ` (control tensor '${tensor}')`;
  if (BOOLEAN_KINDS.has(kind)) {
    if (given.length === 0) {
      return [
        error(
          'sequence-control-form',
          `sequence batching must specify either 'int32_false_true', 'fp32_false_true' or 'bool_false_true' for ${kind} for ${name}${where}`,
          'add exactly one *_false_true list, e.g. int32_false_true: [ 0, 1 ]',
          tensor,
        ),
      ];
    }
    if (given.length > 1) {
      return [
        error(
          'sequence-control-form',
          `sequence batching specifies more than one from 'int32_false_true', 'fp32_false_true' and 'bool_false_true' for ${kind} for ${name}${where}`,
          'keep exactly one *_false_true list',
          tensor,
        ),
      ];
    }
    const n = asList(c[given[0]!]).length;
    return n === 2
      ? []
      : [
          error(
            'sequence-control-size',
            `sequence batching control '${given[0]}' must have exactly 2 entries for ${kind} for ${name}${where} (got ${n})`,
            `write ${given[0]}: [ <false>, <true> ]`,
            tensor,
          ),
        ];
  }
  const out: Diagnostic[] = [];
  if (given.length)
    out.push(
      error(
        'sequence-corrid-form',
        `sequence batching must not specify either 'int32_false_true', 'fp32_false_true' or 'bool_false_true' for ${kind} for ${name}${where}`,
        'remove the *_false_true lists; set data_type only',
        tensor,
      ),
    );
  if (!CORRID_TYPES.has(String(c.data_type ?? ''))) {
    out.push(
      error(
        'sequence-corrid-dtype',
        `unexpected data type for control ${kind} for ${name}. Allowed data types are TYPE_UINT64, TYPE_INT64, TYPE_UINT32, TYPE_INT32 and TYPE_STRING${where} (got ${String(c.data_type ?? 'none')})`,
        'set data_type to TYPE_UINT64, TYPE_INT64, TYPE_UINT32, TYPE_INT32 or TYPE_STRING',
        tensor,
      ),
    );
  }
  return out;
}

function checkControls(sb: Record<string, unknown>, name: string): Diagnostic[] {
  const out: Diagnostic[] = [];
  const tensors = new Set<string>();
  const kinds = new Set<string>();
  for (const ci of asList(sb.control_input)) {
    const tensor = typeof ci.name === 'string' ? ci.name : '';
    if (!tensor)
      out.push(
        error(
          'sequence-control-name',
          `sequence batching control tensor must have a name for ${name}`,
          'name the control tensor, e.g. "START"',
        ),
      );
    else if (tensors.has(tensor))
      out.push(
        error(
          'sequence-control-tensor-reused',
          `sequence batching control tensor '${tensor}' is specified for multiple control kinds for ${name}`,
          'merge the entries or use a different tensor per control',
          tensor,
        ),
      );
    tensors.add(tensor);
    for (const c of asList(ci.control)) {
      const kind = typeof c.kind === 'string' ? c.kind : 'CONTROL_SEQUENCE_START';
      if (kinds.has(kind))
        out.push(
          error(
            'sequence-control-kind-duplicate',
            `sequence batching specifies multiple ${kind} tensors for ${name}`,
            `keep one ${kind} control`,
            tensor,
          ),
        );
      kinds.add(kind);
      out.push(...checkControl(c, tensor, name));
    }
  }
  return out;
}

function checkInitialState(state: Record<string, unknown>, label: string, m: string, port: string): Diagnostic[] {
  const inits = asList(state.initial_state);
  if (inits.length > 1)
    return [
      error(
        'initial-state-count',
        `${label} of ${m} has ${inits.length} initial_state entries; at most one is allowed`,
        'keep one initial_state',
        port,
      ),
    ];
  const init = inits[0];
  if (!init) return [];
  const out: Diagnostic[] = [];
  if (!init.name)
    out.push(
      error(
        'initial-state-name',
        `the initial_state of ${label} of ${m} has no name`,
        'set name on the initial_state',
        port,
      ),
    );
  if (init.data_type !== state.data_type) {
    out.push(
      error(
        'initial-state-dtype',
        `the initial_state of ${label} of ${m} is ${String(init.data_type ?? '(none)')} but the state is ${String(state.data_type ?? '(none)')}`,
        'use the state data_type',
        port,
      ),
    );
  }
  const dims = asList<number>(state.dims);
  const initDims = asList<number>(init.dims);
  const fits = initDims.length === dims.length && initDims.every((d, i) => d >= 1 && (dims[i] === -1 || dims[i] === d));
  if (!fits) {
    out.push(
      error(
        'initial-state-dims',
        `the initial_state of ${label} of ${m} has dims ${formatDims(initDims)}, which do not fit state dims ${formatDims(dims)}`,
        'give fixed dims of the same rank, equal where the state dim is fixed',
        port,
      ),
    );
  }
  if (init.zero_data === undefined && init.data_file === undefined) {
    out.push(
      error(
        'initial-state-data',
        `the initial_state of ${label} of ${m} sets neither zero_data nor data_file`,
        'add zero_data: true or data_file: "<file in initial_state/>"',
        port,
      ),
    );
  }
  return out;
}

function checkStates(sb: Record<string, unknown>, m: string): Diagnostic[] {
  const out: Diagnostic[] = [];
  const inputs = new Set<string>();
  const outputs = new Set<string>();
  asList(sb.state).forEach((s, i) => {
    const label = `state ${typeof s.input_name === 'string' && s.input_name ? `'${s.input_name}'` : i}`;
    const port = typeof s.input_name === 'string' ? s.input_name : undefined;
    // Two states on one tensor would share (and overwrite) one buffer per sequence.
    if (port && inputs.has(port))
      out.push(
        error(
          'state-duplicate-input',
          `implicit state input_name '${port}' of ${m} is used by more than one state`,
          'give each state its own input_name',
          port,
        ),
      );
    const outName = typeof s.output_name === 'string' ? s.output_name : '';
    if (outName && outputs.has(outName))
      out.push(
        error(
          'state-duplicate-output',
          `implicit state output_name '${outName}' of ${m} is used by more than one state`,
          'give each state its own output_name',
          port,
        ),
      );
    if (port) inputs.add(port);
    if (outName) outputs.add(outName);
    if (!s.input_name || !s.output_name)
      out.push(
        error(
          'state-names',
          `${label} of ${m} needs both input_name and output_name`,
          'set input_name and output_name',
          port,
        ),
      );
    if (!s.data_type || s.data_type === 'TYPE_INVALID')
      out.push(error('state-dtype', `${label} of ${m} has no data_type`, 'set data_type', port));
    const dims = asList<number>(s.dims);
    if (dims.length === 0 || dims.some((d) => d !== -1 && d < 1)) {
      out.push(
        error(
          'state-dims',
          `${label} of ${m} has dims ${formatDims(dims)}; give at least one dim, each -1 or at least 1`,
          'fix the state dims',
          port,
        ),
      );
    }
    out.push(...checkInitialState(s, label, m, port ?? ''));
  });
  return out;
}

export function checkSequenceBatching(config: ModelConfig, m: string): Diagnostic[] {
  if (config.sequence_batching === undefined) return [];
  const sb = asRecord(config.sequence_batching);
  const mbs = config.max_batch_size ?? 0;
  const name = config.name || m;
  const out = [...checkControls(sb, name), ...checkStates(sb, m)];
  const oldest = asRecord(sb.oldest);
  out.push(
    ...checkPreferred(asList<number>(oldest.preferred_batch_size), mbs, 'sequence batching preferred batch size', name),
  );
  const util = asRecord(sb.direct).minimum_slot_utilization;
  if (typeof util === 'number' && !(util >= 0 && util <= 1)) {
    out.push(
      error(
        'slot-utilization-range',
        `sequence batching minimum slot utilization must be in range (0.0, 1.0] for ${name} (got ${util})`,
        'set minimum_slot_utilization between 0.0 and 1.0',
      ),
    );
  }
  return out;
}
