import * as v from 'valibot';
import type { GraphDoc, OpId } from '../graph/types.ts';
import { DATA_TYPES } from '../tensor/dtype.ts';
import {
  arr,
  bool,
  byKey,
  dataRecord,
  dims,
  int,
  nonEmptyStr,
  num,
  obj,
  oneOf,
  openObj,
  scalar,
  str,
} from './fields.ts';
import { issueMessage } from './issues.ts';

const instanceGroup = openObj({
  count: v.optional(int()),
  kind: v.optional(oneOf(['KIND_AUTO', 'KIND_GPU', 'KIND_CPU', 'KIND_MODEL'])),
  gpus: v.optional(arr(int(0))),
});

const sequenceState = openObj({
  input_name: nonEmptyStr,
  output_name: nonEmptyStr,
  data_type: nonEmptyStr,
  dims: arr(int()),
});

const sequenceControl = openObj({
  kind: oneOf(['CONTROL_SEQUENCE_START', 'CONTROL_SEQUENCE_READY', 'CONTROL_SEQUENCE_END', 'CONTROL_SEQUENCE_CORRID']),
  int32_false_true: v.optional(arr(int())),
  fp32_false_true: v.optional(arr(num)),
  bool_false_true: v.optional(arr(bool)),
  data_type: v.optional(nonEmptyStr),
});

const sequenceBatching = openObj({
  max_sequence_idle_microseconds: v.optional(int(0)),
  state: v.optional(arr(sequenceState)),
  control_input: v.optional(arr(openObj({ name: nonEmptyStr, control: arr(sequenceControl) }))),
});

const dynamicBatching = openObj({
  preferred_batch_size: v.optional(arr(int())),
  max_queue_delay_microseconds: v.optional(int(0)),
  preserve_ordering: v.optional(bool),
});

/** A model node's settings: the fields the studio edits are checked, unknown Triton fields inside them kept. */
const modelSettingsSchema = obj({
  max_batch_size: v.optional(int(0)),
  instance_group: v.optional(arr(instanceGroup)),
  dynamic_batching: v.optional(v.nullable(dynamicBatching)),
  sequence_batching: v.optional(v.nullable(sequenceBatching)),
  decoupled: v.optional(bool),
});

const common = {
  id: nonEmptyStr,
  position: obj({ x: num, y: num }),
  label: v.optional(str),
};

const tensorParams = { name: nonEmptyStr, datatype: oneOf(DATA_TYPES), dims };

const defaultOutput = obj({ shape: arr(int(0)), data: arr(scalar) });

/** One node, read by the schema of its kind. */
const graphNodeSchema = byKey('kind', {
  input: obj({ ...common, kind: v.literal('input'), params: obj({ ...tensorParams, optional: v.optional(bool) }) }),
  output: obj({ ...common, kind: v.literal('output'), params: obj(tensorParams) }),
  model: obj({
    ...common,
    kind: v.literal('model'),
    params: obj({ model: nonEmptyStr, settings: v.optional(modelSettingsSchema) }),
  }),
  router: obj({ ...common, kind: v.literal('router'), params: obj({ mode: oneOf(['copy', 'direct']), count: int() }) }),
  condition: obj({
    ...common,
    kind: v.literal('condition'),
    params: obj({
      expression: str,
      strategy: oneOf(['gate', 'bls', 'error']),
      ports: arr(nonEmptyStr),
      message: v.nullish(str, ''),
      defaults: v.nullish(dataRecord(defaultOutput), () => ({})),
    }),
  }),
  op: obj({
    ...common,
    kind: v.literal('op'),
    params: obj({
      // An unknown op name is kept: validateGraph reports it on the node.
      op: v.pipe(
        nonEmptyStr,
        v.transform((x) => x as OpId),
      ),
      values: v.nullish(dataRecord(scalar), () => ({})),
    }),
  }),
});

const graphEdgeSchema = obj({
  id: nonEmptyStr,
  source: nonEmptyStr,
  sourcePort: nonEmptyStr,
  target: nonEmptyStr,
  targetPort: nonEmptyStr,
});

/**
 * A current-version graph document. Unknown top-level, node and edge fields are dropped; unknown Triton
 * config fields inside model settings are kept.
 */
const graphDocSchema = obj(
  {
    version: int(0),
    name: str,
    description: v.optional(str),
    maxBatchSize: int(0),
    nodes: arr(graphNodeSchema),
    edges: arr(graphEdgeSchema),
  },
  'must be a JSON object',
);

function firstDuplicate(items: readonly { id: string }[], path: string): string | undefined {
  const seen = new Set<string>();
  for (const [i, x] of items.entries()) {
    if (seen.has(x.id)) return `${path}[${i}].id '${x.id}' is used twice`;
    seen.add(x.id);
  }
  return undefined;
}

type ReadGraphResult = { ok: true; graph: GraphDoc } | { ok: false; error: string };

/**
 * Reads a current-version GraphDoc from untrusted JSON; the error names the field's path and what was
 * expected (`nodes[3].params.count must be an integer`).
 */
export function readGraph(value: unknown): ReadGraphResult {
  const r = v.safeParse(graphDocSchema, value, { abortEarly: true });
  if (!r.success) return { ok: false, error: issueMessage(r.issues[0], 'document') };
  const duplicate = firstDuplicate(r.output.nodes, 'nodes') ?? firstDuplicate(r.output.edges, 'edges');
  return duplicate ? { ok: false, error: duplicate } : { ok: true, graph: r.output };
}
