// The schemas of what a client may send over the WebSocket; `ClientMessage` and `WireTensor` are their types.
import * as v from 'valibot';
import { DATA_TYPES } from '../tensor/dtype.ts';
import { elementCount } from '../tensor/tensor.ts';
import { dataRecord, isObj, obj, oneOf, tensorShape } from '../schema/fields.ts';
import { elementsProblem, type JsonElement } from './tensorElements.ts';

/** Longest requestId, streamId, runId or string sequence id (WebSocket, KServe and gRPC alike). */
export const MAX_ID_LENGTH = 128;
/** Longest saved-graph or model name a message may name. */
const MAX_GRAPH_NAME_LENGTH = 256;

const FRAME = 'must be a frame index ≥ 0';

const wireTensorFields = obj({
  datatype: oneOf(DATA_TYPES),
  shape: tensorShape('must be a non-negative integer', 'must be an array of non-negative integers'),
  // Checked as one array below, in one loop: a tensor may hold millions of elements.
  data: v.optional(v.custom<JsonElement[]>(Array.isArray, 'must be a flat array')),
  binary: v.optional(v.pipe(v.number(FRAME), v.integer(FRAME), v.minValue(0, FRAME))),
});

/**
 * A tensor on the wire, KServe v2 JSON form: `data` flat, or `binary`, the index of a binary frame that
 * follows the message. Data must match the shape's element count and the datatype; the shape's element
 * count must be within `maxTensorElements` when given.
 */
function wireTensorSchema(maxTensorElements?: number) {
  return v.pipe(
    wireTensorFields,
    v.rawCheck<v.InferOutput<typeof wireTensorFields>>(({ dataset, addIssue }) => {
      if (!dataset.typed) return;
      const t = dataset.value;
      const n = elementCount(t.shape);
      const atData = (message: string) =>
        addIssue({ message, path: [{ type: 'object', origin: 'value', input: t, key: 'data', value: t.data }] });
      if (maxTensorElements !== undefined && n > maxTensorElements)
        return addIssue({ message: `has ${n} elements, over the limit maxTensorElements=${maxTensorElements}` });
      if ((t.data === undefined) === (t.binary === undefined))
        return addIssue({ message: 'needs exactly one of data or binary' });
      if (t.data === undefined) return;
      if (t.data.length !== n)
        return atData(`has ${t.data.length} elements but shape [${t.shape.join(',')}] needs ${n}`);
      const problem = elementsProblem(t.datatype, t.data);
      if (problem) atData(problem);
    }),
  );
}

const ID = `must be a string of 1–${MAX_ID_LENGTH} characters`;
const idString = v.pipe(v.string(ID), v.minLength(1, ID), v.maxLength(MAX_ID_LENGTH, ID));

/** A graph document as a message carries it: its shape only; the server migrates and checks it. */
export interface UncheckedGraphDoc {
  name: string;
  nodes: readonly unknown[];
  edges: readonly unknown[];
}

const GRAPH_NAME = `must be a name of 1–${MAX_GRAPH_NAME_LENGTH} characters`;
/** A graph a request names: a saved graph's (or model's) name, or a whole document. */
export const graphRefSchema = v.union(
  [
    v.pipe(v.string(), v.minLength(1, GRAPH_NAME), v.maxLength(MAX_GRAPH_NAME_LENGTH, GRAPH_NAME)),
    // Kept as sent (not copied): the server reads it with the graph document schema.
    v.custom<UncheckedGraphDoc>(
      (x) => isObj(x) && typeof x.name === 'string' && Array.isArray(x.nodes) && Array.isArray(x.edges),
    ),
  ],
  'must be a saved graph name or a graph document {name, nodes, edges}',
);

// Integers above 2^53 - 1 are rounded when JSON is read: two such ids could name one sequence.
const SEQUENCE_ID = `must be an integer from 0 to ${Number.MAX_SAFE_INTEGER} or a string of at most ${MAX_ID_LENGTH} characters`;
const sequenceId = v.union(
  [
    v.pipe(v.number(SEQUENCE_ID), v.safeInteger(SEQUENCE_ID), v.minValue(0, SEQUENCE_ID)),
    v.pipe(v.string(SEQUENCE_ID), v.maxLength(MAX_ID_LENGTH, SEQUENCE_ID)),
  ],
  SEQUENCE_ID,
);

const flag = v.boolean('must be a boolean');

/** One schema per client message type, keyed by `type`, for a given tensor element limit. */
export function clientMessageSchemas(maxTensorElements?: number) {
  const inputs = dataRecord(wireTensorSchema(maxTensorElements), 'must be an object of named tensors');
  return {
    'run.start': obj({
      type: v.literal('run.start'),
      requestId: idString,
      graph: graphRefSchema,
      inputs,
      timeoutMs: v.optional(v.pipe(v.number('must be a positive number'), v.gtValue(0, 'must be a positive number'))),
      exported: v.optional(flag),
    }),
    'run.cancel': obj({ type: v.literal('run.cancel'), runId: idString }),
    'stream.open': obj({
      type: v.literal('stream.open'),
      streamId: idString,
      graph: graphRefSchema,
      sequenceId: v.optional(sequenceId),
    }),
    'stream.append': obj({ type: v.literal('stream.append'), streamId: idString, inputs, end: v.optional(flag) }),
    'stream.end': obj({ type: v.literal('stream.end'), streamId: idString }),
    ping: obj({ type: v.literal('ping'), at: v.number('must be a number') }),
  };
}

type ClientSchemas = ReturnType<typeof clientMessageSchemas>;
/** Client → server. */
export type ClientMessage = { [K in keyof ClientSchemas]: v.InferOutput<ClientSchemas[K]> }[keyof ClientSchemas];
/** A tensor on the wire, KServe v2 JSON form. `binary` = index of a following binary frame instead of `data`. */
export type WireTensor = v.InferOutput<ReturnType<typeof wireTensorSchema>>;
