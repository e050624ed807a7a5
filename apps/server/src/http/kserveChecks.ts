import type { Tensor } from '@ensemble-studio/core';
import { badRequest } from './errors.ts';
import type { MetaTensor } from './graphSignature.ts';

// Triton's checks of a request against the model it names. Pure: they run where the request is parsed, in the
// body worker for a large body, so a request that is refused never sends its tensors to the main thread.

/** What the checks need of a model: its name, and its inputs and outputs as clients see them. */
export interface CheckedModel {
  name: string;
  signature: { inputs: readonly MetaTensor[]; outputs?: readonly MetaTensor[] };
}

function shapeMatches(expected: readonly number[], got: readonly number[]): boolean {
  return expected.length === got.length && expected.every((d, i) => d < 0 || d === got[i]);
}

/**
 * Triton's checks on inputs: unknown names, missing required inputs, datatype and shape.
 * @example checkInputs({ name: 'm', signature: { inputs: [{ name: 'x', datatype: 'FP32', shape: [-1] }] } }, { x })
 */
export function checkInputs(model: CheckedModel, inputs: Record<string, Tensor>): void {
  const specs = new Map(model.signature.inputs.map((s) => [s.name, s]));
  for (const [name, t] of Object.entries(inputs)) {
    const spec = specs.get(name);
    if (!spec) throw badRequest(`unexpected inference input '${name}' for model '${model.name}'`);
    if (spec.datatype !== t.datatype)
      throw badRequest(
        `inference input '${name}' data-type is '${t.datatype}', but model '${model.name}' expects '${spec.datatype}'`,
      );
    if (!shapeMatches(spec.shape, t.shape))
      throw badRequest(
        `unexpected shape for input '${name}' for model '${model.name}'. Expected [${spec.shape.join(',')}], got [${t.shape.join(',')}]`,
      );
  }
  const required = model.signature.inputs.filter((s) => !s.optional);
  const missing = required.filter((s) => !Object.hasOwn(inputs, s.name));
  if (missing.length > 0)
    throw badRequest(
      `expected ${required.length} inputs but got ${Object.keys(inputs).length} inputs for model '${model.name}'`,
    );
}

/** The first name of `names` that `specs` lacks, or the first that appears twice. */
function firstUnknownOrRepeated(
  names: readonly string[],
  specs: readonly MetaTensor[],
): { name: string; repeated: boolean } {
  const known = new Set(specs.map((s) => s.name));
  const seen = new Set<string>();
  for (const name of names) {
    if (!known.has(name)) return { name, repeated: false };
    if (seen.has(name)) return { name, repeated: true };
    seen.add(name);
  }
  return { name: '', repeated: false };
}

/**
 * Refuses, before any tensor is decoded, a request that names more inputs or outputs than the model has: one of
 * them is then unknown or named twice, and Triton refuses it for that. A body of a million one-element inputs so
 * costs one error, not a million tensors.
 * @example checkNameCounts(model, ['x', 'x'], undefined) // throws "input 'x' already exists in request"
 */
export function checkNameCounts(model: CheckedModel, inputs: readonly string[], outputs?: readonly string[]): void {
  if (inputs.length > model.signature.inputs.length) {
    const { name, repeated } = firstUnknownOrRepeated(inputs, model.signature.inputs);
    throw badRequest(
      repeated
        ? `input '${name}' already exists in request`
        : `unexpected inference input '${name}' for model '${model.name}'`,
    );
  }
  const specs = model.signature.outputs;
  if (outputs && specs && outputs.length > specs.length) {
    const { name, repeated } = firstUnknownOrRepeated(outputs, specs);
    throw badRequest(
      repeated
        ? `output '${name}' already exists in request`
        : `unexpected inference output '${name}' for model '${model.name}'`,
    );
  }
}

/**
 * Refuses a requested output the model does not have, before the run, as Triton does when it reads the request. An
 * output it has but does not make is then simply left out of the response.
 * @example checkOutputNames(model, ['nope']) // throws "unexpected inference output 'nope' for model 'm'"
 */
export function checkOutputNames(model: CheckedModel, outputs: readonly string[] | undefined): void {
  const specs = model.signature.outputs;
  if (!outputs || !specs) return;
  for (const name of outputs)
    if (!specs.some((s) => s.name === name))
      throw badRequest(`unexpected inference output '${name}' for model '${model.name}'`);
}
