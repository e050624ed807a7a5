import { ApiError, badRequest } from './errors.ts';

// Triton's checks of where an input's data is (`data`, `binary_data_size` or `shared_memory_region`) and of a
// tensor's shared-memory parameters, with its messages. The studio registers no shared memory, so a tensor naming a
// region names an unknown one.

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

function refuseRegion(parameters: Record<string, unknown>): void {
  const region = parameters.shared_memory_region;
  if (typeof region !== 'string') throw badRequest("Unable to parse 'shared_memory_region'");
  for (const key of ['shared_memory_offset', 'shared_memory_byte_size'])
    if (Object.hasOwn(parameters, key) && !isUInt(parameters[key])) throw badRequest(`Unable to parse '${key}'`);
  throw new ApiError(404, 'not-found', `Unable to find shared memory region: '${region}'`);
}

/**
 * Refuses an input that sets none, or more than one, of `data`, `binary_data_size` and `shared_memory_region`, and
 * one whose data is in shared memory.
 * @throws ApiError 400 with Triton's message; 404 `Unable to find shared memory region: 'r'`.
 * @example checkInputContent({ data: [1], parameters: { binary_data_size: 4 } }) // throws: "… But set 'data' 'binary_data_size'"
 */
export function checkInputContent(input: { data?: unknown; parameters: Record<string, unknown> }): void {
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
  if (set[0] === "'shared_memory_region'") refuseRegion(input.parameters);
}

/**
 * Refuses a requested output to be written to shared memory, after Triton's checks of the combination.
 * @throws ApiError 400 with Triton's message; 404 `Unable to find shared memory region: 'r'`.
 * @example checkOutputParameters({ shared_memory_region: 'r', classification: 2 }) // throws 400
 */
export function checkOutputParameters(parameters: Record<string, unknown>): void {
  if (Object.hasOwn(parameters, 'binary_data') && typeof parameters.binary_data !== 'boolean')
    throw badRequest(`Unable to parse 'binary_data': ${NOT_BOOL}`);
  if (!Object.hasOwn(parameters, 'shared_memory_region')) {
    // Triton reads an output's offset and size whether or not it names a region.
    for (const key of ['shared_memory_offset', 'shared_memory_byte_size'])
      if (Object.hasOwn(parameters, key) && !isUInt(parameters[key]))
        throw badRequest(`Unable to parse '${key}': ${NOT_UINT}`);
    return;
  }
  if (Object.hasOwn(parameters, 'classification'))
    throw badRequest("Output can't set both 'shared_memory_region' and 'classification'");
  if (parameters.binary_data === true)
    throw badRequest("Output can't set both 'shared_memory_region' and 'binary_data'");
  refuseRegion(parameters);
}
