import type { Catalogue } from '../catalogue/types.ts';
import { indexGraph, topoSort } from '../graph/graphIndex.ts';
import type { GraphDoc, GraphEdge, GraphNode } from '../graph/types.ts';
import { portKey, propagateTypes, type PortType } from '../validate/propagate.ts';

/** A port of a node: where a tensor is produced or consumed. */
export interface PortRef {
  node: GraphNode;
  port: string;
}

/** Indexed view of a graph for the compiler: adjacency, topological order, tensor tracing. */
export interface GraphInfo {
  graph: GraphDoc;
  catalogue: Catalogue;
  byId: Map<string, GraphNode>;
  /** node id → input port → the (first) edge feeding it. */
  incoming: Map<string, Map<string, GraphEdge>>;
  /** node id → output port → edges leaving it, in document order. */
  outgoing: Map<string, Map<string, GraphEdge[]>>;
  /** Nodes in a stable topological order (ties keep document order; nodes on cycles come last). */
  order: GraphNode[];
  /** The type of every port, as the validator infers it (`propagateTypes`). */
  types: Map<string, PortType>;
}

/**
 * Indexes `graph` for compilation.
 * @example buildGraphInfo(graph, catalogue).order.map((n) => n.id)
 */
export function buildGraphInfo(graph: GraphDoc, catalogue: Catalogue): GraphInfo {
  const byId = new Map(graph.nodes.map((n) => [n.id, n] as const));
  const incoming = new Map<string, Map<string, GraphEdge>>();
  const outgoing = new Map<string, Map<string, GraphEdge[]>>();
  for (const e of graph.edges) {
    if (!byId.has(e.source) || !byId.has(e.target)) continue;
    const ins = incoming.get(e.target) ?? new Map<string, GraphEdge>();
    if (!ins.has(e.targetPort)) ins.set(e.targetPort, e);
    incoming.set(e.target, ins);
    const outs = outgoing.get(e.source) ?? new Map<string, GraphEdge[]>();
    outs.set(e.sourcePort, [...(outs.get(e.sourcePort) ?? []), e]);
    outgoing.set(e.source, outs);
  }
  const index = indexGraph(graph);
  const { order, blocked } = topoSort(index);
  return {
    graph,
    catalogue,
    byId,
    incoming,
    outgoing,
    order: [...order, ...blocked].map((id) => byId.get(id)!),
    types: propagateTypes(graph, catalogue, index),
  };
}

/** True for a router that maps one ensemble tensor into its consumers instead of being a step. */
export function isDirectRouter(n: GraphNode): boolean {
  return n.kind === 'router' && n.params.mode === 'direct';
}

/**
 * The real producer of the tensor arriving at input `port` of `nodeId`, looking through `direct`
 * routers: an input node's `out`, or an output port of a step. Null when unconnected.
 */
export function resolveSource(info: GraphInfo, nodeId: string, port: string): PortRef | null {
  // A loop, not recursion: a long chain of routers must not exhaust the stack; a cycle gives up.
  for (let hops = 0; hops <= info.graph.nodes.length; hops++) {
    const e = info.incoming.get(nodeId)?.get(port);
    const src = e && info.byId.get(e.source);
    if (!e || !src) return null;
    if (!isDirectRouter(src)) return { node: src, port: e.sourcePort };
    [nodeId, port] = [src.id, 'in'];
  }
  return null;
}

/** Every input port fed by output `port` of `nodeId`, looking through `direct` routers. */
export function consumersOf(info: GraphInfo, nodeId: string, port: string): PortRef[] {
  const out: PortRef[] = [];
  // Depth-first with an explicit stack (consumers in edge order), each router entered once, so a long
  // chain of routers cannot exhaust the call stack and a cycle ends.
  const todo: { edges: GraphEdge[]; next: number }[] = [{ edges: info.outgoing.get(nodeId)?.get(port) ?? [], next: 0 }];
  const entered = new Set<string>();
  while (todo.length > 0) {
    const top = todo[todo.length - 1]!;
    const e = top.edges[top.next++];
    if (!e) {
      todo.pop();
      continue;
    }
    const t = info.byId.get(e.target);
    if (!t) continue;
    if (!isDirectRouter(t)) out.push({ node: t, port: e.targetPort });
    else if (!entered.has(t.id)) {
      entered.add(t.id);
      for (const edges of [...(info.outgoing.get(t.id)?.values() ?? [])].reverse()) todo.push({ edges, next: 0 });
    }
  }
  return out;
}

/**
 * The dtype and FULL shape of the tensor produced at output `port` of `node`, tracing through
 * routers and conditions (whose ports take the type of what feeds them).
 */
function producedType(info: GraphInfo, node: GraphNode, port: string): PortType {
  const t = info.types.get(portKey(node.id, port));
  return { datatype: t?.datatype ?? null, shape: t?.shape ? [...t.shape] : null };
}

/** The type of the tensor arriving at input `port` of `nodeId` (null fields when unknown). */
export function arrivingType(info: GraphInfo, nodeId: string, port: string): PortType {
  const e = info.incoming.get(nodeId)?.get(port);
  const src = e ? info.byId.get(e.source) : undefined;
  return src && e ? producedType(info, src, e.sourcePort) : { datatype: null, shape: null };
}
