import type { ConditionNode, GraphDoc, GraphEdge, GraphNode, ModelSettings, NodeKind, OpId } from '../graph/types.ts';
import { DATA_TYPES } from '../tensor/dtype.ts';
import { arr, bool, dims, fail, int, isObj, num, obj, oneOf, opt, record, scalar, str, type Obj } from './read.ts';

const KINDS: readonly NodeKind[] = ['input', 'output', 'model', 'router', 'condition', 'op'];

/** An object whose listed fields are checked; other fields (Triton config we do not model) are kept. */
function openObj(v: unknown, path: string, check: (o: Obj) => Obj): Obj {
  const o = obj(v, path);
  return { ...o, ...check(o) };
}

function instanceGroup(v: unknown, path: string): Obj {
  return openObj(v, path, (o) => ({
    ...opt(o, 'count', path, (x, p) => int(x, p)),
    ...opt(o, 'kind', path, (x, p) => oneOf(x, p, ['KIND_AUTO', 'KIND_GPU', 'KIND_CPU', 'KIND_MODEL'])),
    ...opt(o, 'gpus', path, (x, p) => arr(x, p, (g, q) => int(g, q, 0))),
  }));
}

function sequenceBatching(v: unknown, path: string): Obj {
  return openObj(v, path, (o) => ({
    ...opt(o, 'max_sequence_idle_microseconds', path, (x, p) => int(x, p, 0)),
    ...opt(o, 'state', path, (x, p) =>
      arr(x, p, (s, q) =>
        openObj(s, q, (so) => ({
          input_name: str(so.input_name, `${q}.input_name`, true),
          output_name: str(so.output_name, `${q}.output_name`, true),
          data_type: str(so.data_type, `${q}.data_type`, true),
          dims: arr(so.dims, `${q}.dims`, (d, r) => int(d, r)),
        })),
      ),
    ),
    ...opt(o, 'control_input', path, (x, p) => arr(x, p, (c, q) => obj(c, q))),
  }));
}

function settings(v: unknown, path: string): ModelSettings {
  const o = obj(v, path);
  const orNull =
    <T>(f: (x: unknown, p: string) => T) =>
    (x: unknown, p: string): T | null =>
      x === null ? null : f(x, p);
  return {
    ...opt(o, 'max_batch_size', path, (x, p) => int(x, p, 0)),
    ...opt(o, 'instance_group', path, (x, p) => arr(x, p, instanceGroup)),
    ...opt(
      o,
      'dynamic_batching',
      path,
      orNull((x, p) =>
        openObj(x, p, (d) => ({
          ...opt(d, 'preferred_batch_size', p, (y, q) => arr(y, q, (z, r) => int(z, r))),
          ...opt(d, 'max_queue_delay_microseconds', p, (y, q) => int(y, q, 0)),
          ...opt(d, 'preserve_ordering', p, bool),
        })),
      ),
    ),
    ...opt(o, 'sequence_batching', path, orNull(sequenceBatching)),
    ...opt(o, 'decoupled', path, bool),
  } as ModelSettings;
}

function conditionParams(o: Obj, p: string): ConditionNode['params'] {
  return {
    expression: str(o.expression, `${p}.expression`),
    strategy: oneOf(o.strategy, `${p}.strategy`, ['gate', 'bls', 'error']),
    ports: arr(o.ports, `${p}.ports`, (x, q) => str(x, q, true)),
    message: str(o.message ?? '', `${p}.message`),
    defaults: record(o.defaults ?? {}, `${p}.defaults`, (x, q) => {
      const d = obj(x, q);
      return { shape: arr(d.shape, `${q}.shape`, (y, r) => int(y, r, 0)), data: arr(d.data, `${q}.data`, scalar) };
    }),
  };
}

function params(kind: NodeKind, v: unknown, p: string): GraphNode['params'] {
  const o = obj(v, p);
  switch (kind) {
    case 'input':
    case 'output':
      return {
        name: str(o.name, `${p}.name`, true),
        datatype: oneOf(o.datatype, `${p}.datatype`, DATA_TYPES),
        dims: dims(o.dims, `${p}.dims`),
        ...(kind === 'input' ? opt(o, 'optional', p, bool) : {}),
      };
    case 'model':
      return { model: str(o.model, `${p}.model`, true), ...opt(o, 'settings', p, settings) };
    case 'router':
      return { mode: oneOf(o.mode, `${p}.mode`, ['copy', 'direct']), count: int(o.count, `${p}.count`) };
    case 'condition':
      return conditionParams(o, p);
    case 'op':
      // An unknown op name is kept: validateGraph reports it on the node.
      return { op: str(o.op, `${p}.op`, true) as OpId, values: record(o.values ?? {}, `${p}.values`, scalar) };
  }
}

function node(v: unknown, p: string): GraphNode {
  const o = obj(v, p);
  const kind = oneOf(o.kind, `${p}.kind`, KINDS);
  const pos = obj(o.position, `${p}.position`);
  return {
    id: str(o.id, `${p}.id`, true),
    kind,
    position: { x: num(pos.x, `${p}.position.x`), y: num(pos.y, `${p}.position.y`) },
    ...opt(o, 'label', p, (x, q) => str(x, q)),
    params: params(kind, o.params, `${p}.params`),
  } as GraphNode;
}

function edge(v: unknown, p: string): GraphEdge {
  const o = obj(v, p);
  const s = (k: string) => str(o[k], `${p}.${k}`, true);
  return {
    id: s('id'),
    source: s('source'),
    sourcePort: s('sourcePort'),
    target: s('target'),
    targetPort: s('targetPort'),
  };
}

function unique(items: { id: string }[], path: string): void {
  const seen = new Set<string>();
  items.forEach((x, i) => (seen.has(x.id) ? fail(`${path}[${i}].id`, `'${x.id}' is used twice`) : seen.add(x.id)));
}

/**
 * Reads a current-version GraphDoc from untrusted JSON (throws SchemaError naming the path).
 * Unknown top-level, node and edge fields are dropped; unknown Triton config fields in model settings are kept.
 */
export function readGraph(v: unknown): GraphDoc {
  const o = isObj(v) ? v : fail('document', 'must be a JSON object');
  const nodes = arr(o.nodes, 'nodes', node);
  const edges = arr(o.edges, 'edges', edge);
  unique(nodes, 'nodes');
  unique(edges, 'edges');
  return {
    version: int(o.version, 'version', 0),
    name: str(o.name, 'name'),
    ...opt(o, 'description', 'document', (x) => str(x, 'description')),
    maxBatchSize: int(o.maxBatchSize, 'maxBatchSize', 0),
    nodes,
    edges,
  };
}
