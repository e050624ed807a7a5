import { ApiError } from './errors.ts';

// Triton's checks of where an input's data is (`data`, `binary_data_size` or `shared_memory_region`) and of a
// tensor's shared-memory parameters, with its messages. The studio registers no shared memory, so a tensor naming a
// region names an unknown one.

const bad = (message: string) => new ApiError(400, 'bad-request', message);

const isUInt = (v: unknown) => typeof v === 'number' && Number.isSafeInteger(v) && v >= 0;

function refuseRegion(parameters: Record<string, unknown>): void {
  const region = parameters.shared_memory_region;
  if (typeof region !== 'string') throw bad("Unable to parse 'shared_memory_region'");
  for (const key of ['shared_memory_offset', 'shared_memory_byte_size'])
    if (Object.hasOwn(parameters, key) && !isUInt(parameters[key])) throw bad(`Unable to parse '${key}'`);
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
    throw bad(
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
  if (!Object.hasOwn(parameters, 'shared_memory_region')) return;
  if (Object.hasOwn(parameters, 'classification'))
    throw bad("Output can't set both 'shared_memory_region' and 'classification'");
  if (parameters.binary_data === true) throw bad("Output can't set both 'shared_memory_region' and 'binary_data'");
  refuseRegion(parameters);
}
