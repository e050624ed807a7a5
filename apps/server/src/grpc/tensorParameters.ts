import { ApiError, badRequest } from '../http/errors.ts';
import type { SharedWindowRef } from '../http/kserveTensorParameters.ts';
import type { WireParameter } from './params.ts';

// Triton's checks of the parameters of a ModelInferRequest, with its messages (clients match on them).

/** Parameter keys starting with `triton_` that a request may use. */
const RESERVED = ['triton_enable_empty_final_response'];

function wrongType(key: string, expected: string): ApiError {
  return badRequest(`invalid value type for '${key}' parameter, expected ${expected}.`);
}

/**
 * Refuses a request parameter of a type Triton refuses for its key (`sequence_start` must be a bool_param,
 * `priority` a non-negative int64 or a uint64, `timeout` an int64, other keys int64, bool, string or double; a
 * parameter with no value is refused), and `triton_`-prefixed keys Triton does not reserve. A uint64 `sequence_id`
 * is accepted (Triton takes int64 or string): it keeps ids above 2^63 exact.
 * @throws ApiError 400 with Triton's message.
 * @example checkRequestParameters({ sequence_start: { parameter_choice: 'int64_param', int64_param: '1' } }) // throws
 */
export function checkRequestParameters(params: Record<string, WireParameter> | undefined): void {
  for (const [key, p] of Object.entries(params ?? {})) {
    const choice = p.parameter_choice;
    if (key === 'sequence_id') {
      if (choice !== 'int64_param' && choice !== 'string_param' && choice !== 'uint64_param')
        throw wrongType(key, 'int64_param or string_param');
    } else if (key === 'sequence_start' || key === 'sequence_end') {
      if (choice !== 'bool_param') throw wrongType(key, 'bool_param');
    } else if (key === 'priority') {
      if (choice !== 'int64_param' && choice !== 'uint64_param') throw wrongType(key, 'int64_param or uint64_param');
      if (choice === 'int64_param' && String(p.int64_param).startsWith('-'))
        throw badRequest("invalid value for 'priority', expected value >= 0.");
    } else if (key === 'timeout') {
      if (choice !== 'int64_param') throw wrongType(key, 'int64_param');
    } else if (key.startsWith('triton_')) {
      if (!RESERVED.includes(key))
        throw badRequest(
          `parameter keys starting with 'triton_' are reserved for Triton usage. Only the following keys starting with 'triton_' are allowed: ${RESERVED.join(' ')}`,
        );
      if (choice !== 'bool_param') throw wrongType(key, 'bool_param');
    } else if (choice === undefined || choice === 'uint64_param') {
      throw wrongType(key, 'int64_param, bool_param, or string_param');
    }
  }
}

/** An int64 parameter as Triton casts it to `size_t`: a negative or oversized value fails the region's bounds checks. */
function sizeOf(p: WireParameter | undefined): number {
  if (!p) return 0;
  const n = Number(p.int64_param);
  return Number.isSafeInteger(n) && n >= 0 ? n : Number.MAX_SAFE_INTEGER;
}

/**
 * The shared memory window a tensor (input or requested output) names, after Triton's checks of the parameters
 * (`ParseSharedMemoryParams`), with its messages; undefined for a tensor that names none. Whether the region exists
 * is checked where the regions are (sharedTensors.ts).
 * @throws ApiError 400 for a malformed combination.
 * @example sharedWindowOf('x', { shared_memory_region: {…}, shared_memory_byte_size: {…} }, false, 'm') // { region, offset: 0, byteSize }
 */
export function sharedWindowOf(
  tensor: string,
  params: Record<string, WireParameter> | undefined,
  hasContents: boolean,
  model: string,
): SharedWindowRef | undefined {
  const region = params?.shared_memory_region;
  const offset = params?.shared_memory_offset;
  const size = params?.shared_memory_byte_size;
  if (!region && !offset && !size) return undefined;
  if (region && region.parameter_choice !== 'string_param')
    throw badRequest(
      `invalid value type for 'shared_memory_region' parameter for tensor '${tensor}', expected string_param.`,
    );
  for (const [key, p] of [
    ['shared_memory_offset', offset],
    ['shared_memory_byte_size', size],
  ] as const) {
    if (!p) continue;
    if (!region)
      throw badRequest(`'${key}' can not be specified without 'shared_memory_region' parameter for tensor '${tensor}'`);
    if (p.parameter_choice !== 'int64_param')
      throw badRequest(`invalid value type for '${key}' parameter for tensor '${tensor}', expected int64_param.`);
  }
  if (!size)
    throw badRequest(
      `'shared_memory_byte_size' must be specified along with 'shared_memory_region' parameter for tensor '${tensor}'`,
    );
  if (hasContents)
    throw badRequest(
      `unexpected 'content' provided when using shared memory for input tensor '${tensor}' for model '${model}'`,
    );
  return { region: region!.string_param ?? '', offset: sizeOf(offset), byteSize: sizeOf(size) };
}

/**
 * The classes each requested output asks for (Triton's classification extension: an int64 `classification` over 0).
 * @throws ApiError 400 with Triton's message for another type or a count under 1.
 * @example classificationCounts([{ name: 'p', parameters: { classification: { parameter_choice: 'int64_param', int64_param: '2' } } }]).get('p') === 2
 */
export function classificationCounts(
  outputs: readonly { name: string; parameters?: Record<string, WireParameter> }[] | undefined,
): Map<string, number> {
  const counts = new Map<string, number>();
  for (const o of outputs ?? []) {
    const p = o.parameters?.classification;
    if (!p) continue;
    if (p.parameter_choice !== 'int64_param')
      throw badRequest("invalid value type for 'classification' parameter, expected int64_param");
    const n = Number(p.int64_param);
    if (!(n > 0)) throw badRequest("invalid value for 'classification' parameter, expected >= 0");
    counts.set(o.name, Math.min(n, 2 ** 32 - 1));
  }
  return counts;
}
