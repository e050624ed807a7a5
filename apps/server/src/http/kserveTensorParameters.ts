import type { DataType } from '@ensemble-studio/core';
import { badRequest } from './errors.ts';

// Triton's checks of where an input's data is (`data`, `binary_data_size` or `shared_memory_region`) and of a
// tensor's shared-memory parameters, with its messages. Whether the region exists, and holds the window, is checked
// on the main thread, which holds the regions (sharedTensors.ts).

const isUInt = (v: unknown) => typeof v === 'number' && Number.isSafeInteger(v) && v >= 0;
const NOT_BOOL = 'attempt to access JSON non-boolean as boolean';
const NOT_UINT = 'attempt to access JSON non-unsigned-integer as unsigned-integer';

/**
 * Refuses a request parameter Triton reads with a type of its own (`sequence_start`, `sequence_end` and
 * `binary_data_output` booleans, `priority` and `timeout` unsigned integers) when it has another, and the keys
 * starting with `triton_`, which Triton's HTTP endpoint keeps for itself. `sequence_id` is read by `sequenceOf`.
 * @throws ApiError 400 with Triton's message.
 * @example checkTypedParameters({ sequence_start: 'true' }) // throws "Unable to parse 'sequence_start': …"
 */
export function checkTypedParameters(parameters: Record<string, unknown>): void {
  for (const [key, value] of Object.entries(parameters)) {
    if (key === 'sequence_start' || key === 'sequence_end' || key === 'binary_data_output') {
      if (typeof value !== 'boolean') throw badRequest(`Unable to parse '${key}': ${NOT_BOOL}`);
    } else if (key === 'priority' || key === 'timeout') {
      // A uint64 past 2^53 still reads as a whole number here; Triton takes any value below 2^64.
      if (typeof value !== 'number' || !Number.isInteger(value) || value < 0 || value >= 2 ** 64)
        throw badRequest(`Unable to parse '${key}': ${NOT_UINT}`);
    } else if (key.startsWith('triton_')) {
      throw badRequest(
        "parameter keys starting with 'triton_' are reserved for Triton usage and should not be specified.",
      );
    }
  }
}

/** A tensor's window of a shared memory region, as its parameters name it (offset and size 0 when not given). */
export interface SharedWindowRef {
  region: string;
  offset: number;
  byteSize: number;
}

/** An input whose data is a window of a shared memory region (its shape and datatype checked, its bytes not read). */
export interface SharedInput extends SharedWindowRef {
  name: string;
  datatype: DataType;
  shape: number[];
}

function regionOf(parameters: Record<string, unknown>): SharedWindowRef {
  const region = parameters.shared_memory_region;
  if (typeof region !== 'string') throw badRequest("Unable to parse 'shared_memory_region'");
  for (const key of ['shared_memory_offset', 'shared_memory_byte_size'])
    if (Object.hasOwn(parameters, key) && !isUInt(parameters[key])) throw badRequest(`Unable to parse '${key}'`);
  return {
    region,
    offset: (parameters.shared_memory_offset as number | undefined) ?? 0,
    byteSize: (parameters.shared_memory_byte_size as number | undefined) ?? 0,
  };
}

/**
 * Refuses an input that sets none, or more than one, of `data`, `binary_data_size` and `shared_memory_region`;
 * returns the window of an input whose data is in shared memory.
 * @throws ApiError 400 with Triton's message.
 * @example checkInputContent({ data: [1], parameters: { binary_data_size: 4 } }) // throws: "… But set 'data' 'binary_data_size'"
 */
export function checkInputContent(input: {
  data?: unknown;
  parameters: Record<string, unknown>;
}): SharedWindowRef | undefined {
  const set = [
    ['data', input.data !== undefined],
    ['binary_data_size', Object.hasOwn(input.parameters, 'binary_data_size')],
    ['shared_memory_region', Object.hasOwn(input.parameters, 'shared_memory_region')],
  ]
    .filter(([, has]) => has)
    .map(([name]) => `'${String(name)}'`);
  if (set.length !== 1)
    throw badRequest(
      "Input must set only one of the following fields: 'data', 'binary_data_size' in 'parameters', " +
        `'shared_memory_region' in 'parameters'. But ${set.length === 0 ? 'no field is set' : `set ${set.join(' ')}`}`,
    );
  return set[0] === "'shared_memory_region'" ? regionOf(input.parameters) : undefined;
}

/**
 * Checks a requested output's parameters as Triton does; returns its window when it is to be written to shared memory.
 * @throws ApiError 400 with Triton's message.
 * @example checkOutputParameters({ shared_memory_region: 'r', classification: 2 }) // throws 400
 */
export function checkOutputParameters(parameters: Record<string, unknown>): SharedWindowRef | undefined {
  if (Object.hasOwn(parameters, 'binary_data') && typeof parameters.binary_data !== 'boolean')
    throw badRequest(`Unable to parse 'binary_data': ${NOT_BOOL}`);
  if (!Object.hasOwn(parameters, 'shared_memory_region')) {
    // Triton reads an output's offset and size whether or not it names a region.
    for (const key of ['shared_memory_offset', 'shared_memory_byte_size'])
      if (Object.hasOwn(parameters, key) && !isUInt(parameters[key]))
        throw badRequest(`Unable to parse '${key}': ${NOT_UINT}`);
    return undefined;
  }
  if (Object.hasOwn(parameters, 'classification'))
    throw badRequest("Output can't set both 'shared_memory_region' and 'classification'");
  if (parameters.binary_data === true)
    throw badRequest("Output can't set both 'shared_memory_region' and 'binary_data'");
  return regionOf(parameters);
}
