// Tensors the sequence batcher adds to a request: implicit state and control inputs.
import type { DataType, ModelConfig, SequenceState, Tensor } from '@ensemble-studio/core';
import { allocData, elementCount, fromConfigType, zeros } from '@ensemble-studio/core';

/** The flags of one request of a sequence. */
export interface SequenceFlags {
  id: number | string;
  start: boolean;
  end: boolean;
}

/**
 * The initial value of each implicit state for a new sequence: zeros (also Triton's `zero_data`;
 * without `initial_state` Triton leaves it uninitialised, we give zeros), or the raw little-endian
 * bytes of `data_file`. A `-1` dim becomes 1 on the first request; batching models get a batch dim of 1.
 */
export function initialStates(config: ModelConfig, readFile: (name: string) => Uint8Array): Record<string, Tensor> {
  const mbs = config.max_batch_size ?? 0;
  const out: Record<string, Tensor> = {};
  for (const s of config.sequence_batching?.state ?? []) out[s.input_name] = initialState(s, mbs, readFile);
  return out;
}

function initialState(s: SequenceState, mbs: number, readFile: (name: string) => Uint8Array): Tensor {
  const datatype: DataType = fromConfigType(s.data_type) ?? 'FP32';
  const init = s.initial_state?.[0];
  const dims = (init?.dims ?? s.dims).map((d) => (d < 0 ? 1 : d));
  const shape = mbs > 0 ? [1, ...dims] : dims;
  if (init?.data_file) {
    const bytes = readFile(init.data_file);
    const data = allocData(datatype, elementCount(shape));
    if (Array.isArray(data)) throw new Error(`initial_state data_file is not supported for ${s.data_type}`);
    const view = data as Uint8Array;
    new Uint8Array(view.buffer).set(bytes.subarray(0, view.buffer.byteLength));
    return { datatype, shape, data };
  }
  return zeros(datatype, shape);
}

/** The state output name → state input name map of a config. */
export function stateNames(config: ModelConfig): { input: string; output: string }[] {
  return (config.sequence_batching?.state ?? []).map((s) => ({ input: s.input_name, output: s.output_name }));
}

/**
 * Control input tensors for a batch of requests (one element per request): START, END, READY
 * (always true: every slot in our batches holds a request), CORRID. Shape [B, 1] for batching
 * models, [1] otherwise.
 */
export function controlTensors(config: ModelConfig, flags: readonly SequenceFlags[]): Record<string, Tensor> {
  const batching = (config.max_batch_size ?? 0) > 0;
  const shape = batching ? [flags.length, 1] : [flags.length];
  const out: Record<string, Tensor> = {};
  for (const ci of config.sequence_batching?.control_input ?? []) {
    for (const c of ci.control) {
      if (c.kind === 'CONTROL_SEQUENCE_CORRID') {
        const datatype = fromConfigType(c.data_type ?? 'TYPE_UINT64') ?? 'UINT64';
        const data = allocData(datatype, flags.length);
        flags.forEach((f, i) => {
          if (Array.isArray(data)) data[i] = String(f.id);
          else if (data instanceof BigInt64Array || data instanceof BigUint64Array) data[i] = BigInt(f.id);
          else (data as Int32Array)[i] = Number(f.id);
        });
        out[ci.name] = { datatype, shape, data };
        continue;
      }
      const pick = (f: SequenceFlags) =>
        c.kind === 'CONTROL_SEQUENCE_START' ? f.start : c.kind === 'CONTROL_SEQUENCE_END' ? f.end : true;
      out[ci.name] = boolControl(c, flags.map(pick), shape);
    }
  }
  return out;
}

function boolControl(
  c: { int32_false_true?: number[]; fp32_false_true?: number[]; bool_false_true?: boolean[] },
  values: boolean[],
  shape: number[],
): Tensor {
  if (c.fp32_false_true)
    return { datatype: 'FP32', shape, data: Float32Array.from(values, (v) => c.fp32_false_true![v ? 1 : 0] ?? 0) };
  if (c.bool_false_true)
    return { datatype: 'BOOL', shape, data: Uint8Array.from(values, (v) => (c.bool_false_true![v ? 1 : 0] ? 1 : 0)) };
  const pair = c.int32_false_true ?? [0, 1];
  return { datatype: 'INT32', shape, data: Int32Array.from(values, (v) => pair[v ? 1 : 0] ?? 0) };
}
