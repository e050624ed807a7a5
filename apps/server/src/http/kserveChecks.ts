import { keyedRecord, type Tensor } from '@ensemble-studio/core';
import { badRequest } from './errors.ts';
import type { MetaTensor } from './graphSignature.ts';
import { logRequest } from '../engine/logRequest.ts';
import { inputCountMessage as countMessage } from '../engine/omittedInputs.ts';

// Triton's checks of a request against the model it names. Pure: they run where the request is parsed, in the
// body worker for a large body, so a request that is refused never sends its tensors to the main thread. The
// messages of core's `InferenceRequest` (`AddOriginalInput`, `Normalize`, `ValidateRequestInputs`) start with its
// `LogRequest()` prefix, `[request id: <id>] ` (`id`: the request's, if any); those of the model's input and output
// lookups (`unexpected inference input`/`output`) do not.

/** What the checks need of a model: its name, its inputs and outputs as clients see them, and its max_batch_size. */
export interface CheckedModel {
  name: string;
  signature: { inputs: readonly MetaTensor[]; outputs?: readonly MetaTensor[]; maxBatchSize?: number };
}

/** Triton's `DimsListToString`: `[-1,256]`. */
const dimsText = (dims: readonly number[]) => `[${dims.join(',')}]`;

function shapeMatches(expected: readonly number[], got: readonly number[]): boolean {
  return expected.length === got.length && expected.every((d, i) => d < 0 || d === got[i]);
}

/** Triton's message when a request has more inputs than the model or fewer than it requires (`ValidateRequestInputs`). */
function inputCountMessage(model: CheckedModel, given: readonly string[]): string {
  return countMessage(model.name, model.signature.inputs, given);
}

/** Triton's batch checks when the model batches: every input has the batch dim first, one batch size, within max_batch_size. */
/** What the checks read of a tensor: an input in shared memory is checked before its bytes are read. */
type TensorHead = Pick<Tensor, 'datatype' | 'shape'>;

function checkBatch(model: CheckedModel, inputs: Record<string, TensorHead>, maxBatchSize: number, log: string): void {
  let batch = 0;
  for (const [name, t] of Object.entries(inputs)) {
    if (t.shape.length === 0)
      throw badRequest(`${log}input '${name}' has no shape but model requires batch dimension for '${model.name}'`);
    if (batch === 0) batch = t.shape[0]!;
    else if (t.shape[0] !== batch)
      throw badRequest(`${log}input '${name}' batch size does not match other inputs for '${model.name}'`);
  }
  if (batch > maxBatchSize)
    throw badRequest(`${log}inference request batch-size must be <= ${maxBatchSize} for '${model.name}'`);
}

/**
 * The inputs a request names, for `checkInputs`: those it carries and those in shared memory (by their heads).
 * @example checkInputs(model, withShared(req.inputs, req.sharedInputs))
 */
export function withShared(
  inputs: Record<string, Tensor>,
  shared: readonly (TensorHead & { name: string })[] | undefined,
): Record<string, TensorHead> {
  if (!shared || shared.length === 0) return inputs;
  const all: Record<string, TensorHead> = keyedRecord<TensorHead>();
  Object.assign(all, inputs);
  for (const s of shared) all[s.name] = s;
  return all;
}

/**
 * Triton's checks on inputs, in its order (`InferenceRequest::Normalize`): the input count, unknown names, the
 * batch dimension (a model with max_batch_size > 0), then each input's datatype and shape.
 * @example checkInputs({ name: 'm', signature: { inputs: [{ name: 'x', datatype: 'FP32', shape: [-1] }] } }, { x })
 */
export function checkInputs(model: CheckedModel, inputs: Record<string, TensorHead>, id?: string): void {
  const log = logRequest(id);
  const specs = new Map(model.signature.inputs.map((s) => [s.name, s]));
  const given = Object.keys(inputs);
  const required = model.signature.inputs.filter((s) => !s.optional).length;
  if (given.length > specs.size || given.length < required) throw badRequest(log + inputCountMessage(model, given));
  for (const name of given)
    if (!specs.has(name)) throw badRequest(`unexpected inference input '${name}' for model '${model.name}'`);
  const maxBatchSize = model.signature.maxBatchSize ?? 0;
  if (maxBatchSize > 0) checkBatch(model, inputs, maxBatchSize, log);
  for (const [name, t] of Object.entries(inputs)) {
    const spec = specs.get(name)!;
    if (spec.datatype !== t.datatype)
      throw badRequest(
        `${log}inference input '${name}' data-type is '${t.datatype}', but model '${model.name}' expects '${spec.datatype}'`,
      );
    if (!shapeMatches(spec.shape, t.shape)) {
      const note =
        maxBatchSize > 0
          ? 'NOTE: Setting a non-zero max_batch_size in the model config requires a batch dimension to be prepended to each input shape. If you want to specify the full shape including the batch dim in your input dims config, try setting max_batch_size to zero. See the model configuration docs for more info on max_batch_size.'
          : '';
      throw badRequest(
        `${log}unexpected shape for input '${name}' for model '${model.name}'. Expected ${dimsText(spec.shape)}, got ${dimsText(t.shape)}. ${note}`,
      );
    }
  }
}

/** The first name of `names` that `specs` lacks, or the first that appears twice. */
function firstUnknownOrRepeated(
  names: readonly string[],
  specs: readonly MetaTensor[],
): { name: string; repeated: boolean } {
  const repeated = firstRepeated(names);
  if (repeated !== undefined) return { name: repeated, repeated: true };
  const known = new Set(specs.map((s) => s.name));
  return { name: names.find((n) => !known.has(n)) ?? '', repeated: false };
}

/** The first name that appears a second time: the front end refuses it while parsing, before any check of the model. */
function firstRepeated(names: readonly string[]): string | undefined {
  const seen = new Set<string>();
  for (const name of names) {
    if (seen.has(name)) return name;
    seen.add(name);
  }
  return undefined;
}

/**
 * Refuses, before any tensor is decoded, a request that names more inputs or outputs than the model has: a name
 * is then repeated (refused as Triton's front end does), the inputs too many for the model (Triton's count check),
 * or an output unknown. A body of a million one-element inputs so
 * costs one error, not a million tensors.
 * @example checkNameCounts(model, ['x', 'x'], undefined, 'a') // throws "[request id: a] input 'x' already exists in request"
 */
export function checkNameCounts(
  model: CheckedModel,
  inputs: readonly string[],
  outputs: readonly string[] | undefined,
  id: string | undefined,
): void {
  if (inputs.length > model.signature.inputs.length) {
    const repeated = firstRepeated(inputs);
    throw badRequest(
      logRequest(id) +
        (repeated !== undefined ? `input '${repeated}' already exists in request` : inputCountMessage(model, inputs)),
    );
  }
  const specs = model.signature.outputs;
  if (outputs && specs && outputs.length > specs.length) {
    const { name, repeated } = firstUnknownOrRepeated(outputs, specs);
    throw badRequest(
      repeated
        ? `${logRequest(id)}output '${name}' already exists in request`
        : `unexpected inference output '${name}' for model '${model.name}'`,
    );
  }
}

/**
 * Refuses an output requested twice (core's `AddOriginalRequestedOutput`, as the front end adds each) and one the
 * model does not have, before the run, as Triton does when it reads the request. An output it has but does not make
 * is then simply left out of the response.
 * @example checkOutputNames(model, ['nope'], undefined) // throws "unexpected inference output 'nope' for model 'm'"
 */
export function checkOutputNames(
  model: CheckedModel,
  outputs: readonly string[] | undefined,
  id: string | undefined,
): void {
  const repeated = outputs && firstRepeated(outputs);
  if (repeated !== undefined) throw badRequest(`${logRequest(id)}output '${repeated}' already exists in request`);
  const specs = model.signature.outputs;
  if (!outputs || !specs) return;
  for (const name of outputs)
    if (!specs.some((s) => s.name === name))
      throw badRequest(`unexpected inference output '${name}' for model '${model.name}'`);
}
