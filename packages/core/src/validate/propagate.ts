import type { Catalogue } from '../catalogue/types.ts';
import { indexGraph, topoSort, type GraphIndex } from '../graph/graphIndex.ts';
import type { GraphDoc, GraphNode } from '../graph/types.ts';
import { nodePorts } from '../kinds/registry.ts';
import type { DataType } from '../tensor/dtype.ts';
import type { PortType } from '../tensor/tensor.ts';

export type { PortType } from '../tensor/tensor.ts';

/** The key of a port in `propagateTypes`' map. @example portKey('det', 'prob') === 'det:prob' */
export const portKey = (nodeId: string, port: string): string => `${nodeId}:${port}`;

const UNKNOWN: PortType = { datatype: null, shape: null };

/** Type arriving at `node.port` from its (first) producer. */
function arriving(index: GraphIndex, types: Map<string, PortType>, node: GraphNode, port: string): PortType {
  const e = index.into(node.id, port)[0];
  return (e && types.get(portKey(e.source, e.sourcePort))) || UNKNOWN;
}

/** Infers a router/condition node's pass-through ports; true when something changed. */
function inferPassThrough(index: GraphIndex, types: Map<string, PortType>, node: GraphNode): boolean {
  const set = (port: string, t: PortType): boolean => {
    const old = types.get(portKey(node.id, port));
    if (old && old.datatype === t.datatype && JSON.stringify(old.shape) === JSON.stringify(t.shape)) return false;
    types.set(portKey(node.id, port), { datatype: t.datatype, shape: t.shape ? [...t.shape] : null });
    return true;
  };
  let changed = false;
  if (node.kind === 'router') {
    const t = arriving(index, types, node, 'in');
    changed = set('in', t) || changed;
    for (let i = 0; i < node.params.count; i++) changed = set(`out_${i}`, t) || changed;
  } else if (node.kind === 'condition') {
    for (const p of node.params.ports) changed = set(p, arriving(index, types, node, p)) || changed;
  }
  return changed;
}

/**
 * The dtype and FULL shape of every port of the graph: declared ports from `nodePorts`; router
 * ports (in → every out) and condition ports (each passes through) inferred from their producers.
 * Keys are `portKey(nodeId, port)`; unknown types are `{ datatype: null, shape: null }`.
 * @example propagateTypes(graph, catalogue).get(portKey('router', 'out_1'))?.datatype // 'FP32'
 */
export function propagateTypes(
  graph: GraphDoc,
  catalogue: Catalogue,
  index: GraphIndex = indexGraph(graph),
): Map<string, PortType> {
  const types = new Map<string, PortType>();
  for (const node of graph.nodes) {
    const ports = nodePorts(graph, node, catalogue);
    for (const p of [...ports.inputs, ...ports.outputs])
      types.set(portKey(node.id, p.name), { datatype: p.datatype, shape: p.shape });
  }
  const topo = topoSort(index);
  const acyclic = topo.blocked.length === 0;
  const order = acyclic ? topo.order : graph.nodes.map((n) => n.id);
  const byId = new Map(graph.nodes.map((n) => [n.id, n]));
  // One pass in dependency order suffices for a DAG; with a cycle, iterate to a fixed point.
  for (let pass = 0; pass <= graph.nodes.length; pass++) {
    let changed = false;
    for (const id of order) {
      const node = byId.get(id);
      if (node && (node.kind === 'router' || node.kind === 'condition'))
        changed = inferPassThrough(index, types, node) || changed;
    }
    if (acyclic || !changed) break;
  }
  return types;
}

/**
 * Whether two dtypes can meet across an edge (null = unknown, always compatible).
 * @example dtypesCompatible('FP32', null) === true
 */
export function dtypesCompatible(a: DataType | null, b: DataType | null): boolean {
  return a === null || b === null || a === b;
}

/**
 * Whether two full shapes can meet across an edge: same rank, and each dim equal or `-1` on either side.
 * @example shapesCompatible([-1, 4], [8, 4]) === true; shapesCompatible([4], [-1, 4]) === false
 */
export function shapesCompatible(a: readonly number[] | null, b: readonly number[] | null): boolean {
  if (a === null || b === null) return true;
  return a.length === b.length && a.every((d, i) => d === -1 || b[i] === -1 || d === b[i]);
}

/** `[-1,3,48,-1]` for messages. @example formatShape([-1, 4]) === '[-1,4]' */
export function formatShape(shape: readonly number[] | null): string {
  return shape === null ? '?' : `[${shape.join(',')}]`;
}
