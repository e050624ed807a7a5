// The JSON part of a KServe v2 infer request, as the schema layer reads it. Its messages keep Triton's
// wording (`input 'x' has unknown datatype "FLOAT"`), which clients and their tests match on.
import * as v from 'valibot';
import { DATA_TYPES } from '../tensor/dtype.ts';
import { isObj, obj, tensorShape, type Obj } from '../schema/fields.ts';
import { shown } from '../schema/issues.ts';

const NEEDS_NAME = 'each input needs a "name"';
const SHAPE = 'shape must be an array of non-negative integers';

/** A field Triton's clients may leave out or fill loosely: anything but an object reads as `{}`. */
const parameters = v.fallback(v.custom<Obj>(isObj), () => ({}));

const inferInput = obj(
  {
    name: v.string(NEEDS_NAME),
    datatype: v.picklist(DATA_TYPES, (issue) => `has unknown datatype ${shown(issue.input)}`),
    shape: tensorShape(SHAPE, SHAPE),
    parameters,
    // Nested or flat, possibly millions of elements: flattened and checked against the datatype by the reader.
    data: v.optional(v.unknown()),
  },
  NEEDS_NAME,
);

const requestedOutput = obj(
  { name: v.string('each requested output needs a "name"'), parameters },
  'each requested output needs a "name"',
);

/** `POST /v2/models/{m}/infer`'s JSON: inputs are required; `id`, `parameters` and `outputs` of the wrong type are ignored. */
const inferBodySchema = obj(
  {
    id: v.fallback(v.optional(v.string()), () => undefined),
    parameters,
    inputs: v.array(inferInput, 'infer request needs an "inputs" array'),
    // Not an array: all outputs, as Triton answers a request without `outputs`; an array is checked item by item.
    outputs: v.optional(
      v.pipe(
        v.unknown(),
        v.transform((x) => (Array.isArray(x) ? x : undefined)),
        v.optional(v.array(requestedOutput)),
      ),
    ),
  },
  'infer request must be a JSON object',
);

type InferBody = v.InferOutput<typeof inferBodySchema>;
export type InferBodyInput = InferBody['inputs'][number];

/** The input an issue is under, when the issue is about one of its fields (not its name). */
function inputOf(issue: v.BaseIssue<unknown>): Obj | undefined {
  const path = issue.path ?? [];
  const at = path.findIndex((p) => p.key === 'inputs');
  const input = path[at + 1]?.value;
  return at >= 0 && path[at + 2] && path[at + 2]?.key !== 'name' && isObj(input) && typeof input.name === 'string'
    ? input
    : undefined;
}

/**
 * Reads an infer request's JSON. The error is Triton's: the input's name, then what is wrong with it
 * (`input 'x' shape must be an array of non-negative integers`).
 * @example readInferBody({ inputs: [{ name: 'x', datatype: 'FP32', shape: [1], data: [1] }] }).ok === true
 */
export function readInferBody(value: unknown): { ok: true; body: InferBody } | { ok: false; error: string } {
  const r = v.safeParse(inferBodySchema, value, { abortEarly: true });
  if (r.success) return { ok: true, body: r.output };
  const issue = r.issues[0];
  const input = inputOf(issue);
  return { ok: false, error: input ? `input '${String(input.name)}' ${issue.message}` : issue.message };
}
