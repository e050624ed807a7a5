// A step's output that its response left out, as Triton's ensemble handles it: a placeholder flows in its place,
// the steps it feeds run without that input, and the model's own input checks then refuse a required one.
import {
  fromConfigType,
  gateTensorNames,
  generatedModelName,
  opDef,
  type GraphNode,
  type ModelConfig,
  type Tensor,
} from '@ensemble-studio/core';
import { EngineError } from './errors.ts';

/**
 * The placeholder that travels where a tensor was left out (Triton's `AddTensor(nullptr)` in `ConsumeResponse`):
 * it completes a port join and a graph response like a tensor, and is never handed to a node or a client.
 * Compared by identity.
 */
export const OMITTED: Tensor = Object.freeze({
  datatype: 'FP32',
  shape: Object.freeze([0]),
  data: new Float32Array(0),
});

/** An input node's response when the request leaves its (optional) input out. */
export const OMITTED_INPUT: Readonly<Record<string, Tensor>> = Object.freeze({ out: OMITTED });

/** The inputs of the model a step sends its request to, in the model's config order. */
export interface StepInputs {
  /** The model's name (a generated model's for op, condition and copy-router nodes). */
  model: string;
  /** Each input: the node's port that feeds it and the model's name for it. */
  inputs: readonly { port: string; name: string; optional?: boolean }[];
}

/** Refusal of a step's request by the model's input checks: Triton's words follow the ensemble's name alone. */
export class StepInputsError extends EngineError {
  constructor(message: string) {
    super('invalid-input', message);
  }
}

/**
 * An input whose data type is not `config`'s is refused as Triton's `Normalize` refuses it (a producer upstream sent
 * the wrong type): a step's input check, so an ensemble reports it after its name and the request's id alone.
 * @throws StepInputsError naming the input, its type and the type model `model` expects
 */
export function checkInputTypes(model: string, config: ModelConfig, inputs: Record<string, Tensor>): void {
  for (const input of config.input ?? []) {
    const t = inputs[input.name];
    const want = fromConfigType(input.data_type);
    if (t && want && t.datatype !== want) {
      throw new StepInputsError(
        `inference input '${input.name}' data-type is '${t.datatype}', but model '${model}' expects '${want}'`,
      );
    }
  }
}

/**
 * Triton's message for a request with more inputs than the model has or fewer than it requires
 * (`InferenceRequest::ValidateRequestInputs`, core src/infer_request.cc).
 * @example inputCountMessage('m', [{ name: 'X' }], []) // "expected 1 inputs but got 0 inputs for model 'm'. …"
 */
export function inputCountMessage(
  model: string,
  specs: readonly { name: string; optional?: boolean }[],
  given: readonly string[],
): string {
  const required = specs.filter((s) => !s.optional);
  const quoted = (names: readonly string[]) => names.map((n) => `'${n}'`).join(',');
  const present = new Set(given);
  // Triton builds the missing list by dropping a trailing comma, so with none missing only "]" is left.
  const missing = required.filter((s) => !present.has(s.name)).map((s) => s.name);
  const missingText = missing.length > 0 ? `[${quoted(missing)}]` : ']';
  const counted =
    required.length === specs.length
      ? `expected ${specs.length} inputs but got ${given.length}`
      : `expected number of inputs between ${required.length} and ${specs.length} but got ${given.length}`;
  // Only the first names: the message is cut to MAX_ERROR_MESSAGE characters when it is sent.
  return `${counted} inputs for model '${model}'. Got input(s) [${quoted(given.slice(0, 100))}], but missing required input(s) ${missingText}. Please provide all required input(s).`;
}

/**
 * The inputs of the generated model a non-model node becomes when the graph is exported (every input required);
 * undefined for a direct router, which is no step: the placeholder passes through it to its consumers.
 * @example generatedStepInputs('g', condNode).inputs[0].name // 'IN_x'
 */
export function generatedStepInputs(graph: string, node: GraphNode): StepInputs | undefined {
  const model = generatedModelName(graph, node.id);
  const same = (port: string) => ({ port, name: port });
  switch (node.kind) {
    case 'op':
      return { model, inputs: (opDef(node.params.op)?.inputs ?? []).map((p) => same(p.name)) };
    case 'condition':
      return { model, inputs: node.params.ports.map((port) => ({ port, name: gateTensorNames(port).input })) };
    case 'router':
      return node.params.mode === 'direct' ? undefined : { model, inputs: [same('in')] };
    default:
      return undefined;
  }
}

/**
 * Takes the placeholders out of a step's gathered inputs; with any taken out, the model's input count check
 * (the first of Triton's checks on a request) decides whether the step may still run.
 * @returns the inputs to run with, or the refusal
 */
export function withoutPlaceholders(
  inputs: Iterable<[string, Tensor]>,
  node: GraphNode,
  steps: { stepInputs?(node: GraphNode): StepInputs | undefined },
): Record<string, Tensor> | StepInputsError {
  const kept: Record<string, Tensor> = {};
  let omitted = false;
  for (const [port, t] of inputs) {
    if (t === OMITTED) omitted = true;
    else kept[port] = t;
  }
  if (!omitted) return kept;
  const s = steps.stepInputs?.(node);
  if (!s) return kept;
  const given = s.inputs.filter((i) => kept[i.port] !== undefined).map((i) => i.name);
  const required = s.inputs.reduce((n, i) => n + (i.optional ? 0 : 1), 0);
  if (given.length > s.inputs.length || given.length < required)
    return new StepInputsError(inputCountMessage(s.model, s.inputs, given));
  return kept;
}
