import type { Catalogue } from '../catalogue/types.ts';
import type { GraphDoc, GraphEdge, GraphNode } from '../graph/types.ts';
import { nodePorts } from '../kinds/registry.ts';
import type { DataType } from '../tensor/dtype.ts';

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
  return { graph, catalogue, byId, incoming, outgoing, order: topoSort(graph, byId, incoming) };
}

function topoSort(graph: GraphDoc, byId: Map<string, GraphNode>, incoming: GraphInfo['incoming']): GraphNode[] {
  const indeg = new Map<string, number>();
  const next = new Map<string, string[]>();
  for (const n of graph.nodes) indeg.set(n.id, 0);
  for (const [target, ports] of incoming) {
    for (const e of ports.values()) {
      indeg.set(target, (indeg.get(target) ?? 0) + 1);
      next.set(e.source, [...(next.get(e.source) ?? []), target]);
    }
  }
  const index = new Map(graph.nodes.map((n, i) => [n.id, i] as const));
  const ready = graph.nodes.filter((n) => indeg.get(n.id) === 0).map((n) => n.id);
  const out: GraphNode[] = [];
  while (ready.length > 0) {
    ready.sort((a, b) => (index.get(a) ?? 0) - (index.get(b) ?? 0));
    const id = ready.shift()!;
    out.push(byId.get(id)!);
    for (const t of next.get(id) ?? []) {
      const d = (indeg.get(t) ?? 0) - 1;
      indeg.set(t, d);
      if (d === 0) ready.push(t);
    }
  }
  const seen = new Set(out.map((n) => n.id));
  for (const n of graph.nodes) if (!seen.has(n.id)) out.push(n);
  return out;
}

/** True for a router that maps one ensemble tensor into its consumers instead of being a step. */
export function isDirectRouter(n: GraphNode): boolean {
  return n.kind === 'router' && n.params.mode === 'direct';
}

/**
 * The real producer of the tensor arriving at input `port` of `nodeId`, looking through `direct`
 * routers: an input node's `out`, or an output port of a step. Null when unconnected.
 */
export function resolveSource(info: GraphInfo, nodeId: string, port: string, depth = 0): PortRef | null {
  const e = info.incoming.get(nodeId)?.get(port);
  if (!e || depth > info.graph.nodes.length) return null;
  const src = info.byId.get(e.source);
  if (!src) return null;
  if (isDirectRouter(src)) return resolveSource(info, src.id, 'in', depth + 1);
  return { node: src, port: e.sourcePort };
}

/** Every input port fed by output `port` of `nodeId`, looking through `direct` routers. */
export function consumersOf(info: GraphInfo, nodeId: string, port: string, depth = 0): PortRef[] {
  const out: PortRef[] = [];
  if (depth > info.graph.nodes.length) return out;
  for (const e of info.outgoing.get(nodeId)?.get(port) ?? []) {
    const t = info.byId.get(e.target);
    if (!t) continue;
    if (isDirectRouter(t)) {
      for (const p of info.outgoing.get(t.id)?.keys() ?? []) {
        out.push(...consumersOf(info, t.id, p, depth + 1));
      }
    } else {
      out.push({ node: t, port: e.targetPort });
    }
  }
  return out;
}

export interface PortType {
  datatype: DataType | null;
  shape: number[] | null;
}

/**
 * The dtype and FULL shape of the tensor produced at output `port` of `node`, tracing through
 * routers and conditions (whose ports take the type of what feeds them).
 */
export function producedType(info: GraphInfo, node: GraphNode, port: string, depth = 0): PortType {
  if (depth > info.graph.nodes.length) return { datatype: null, shape: null };
  if (node.kind === 'router' || node.kind === 'condition') {
    const inPort = node.kind === 'router' ? 'in' : port;
    const e = info.incoming.get(node.id)?.get(inPort);
    const src = e ? info.byId.get(e.source) : undefined;
    return src && e ? producedType(info, src, e.sourcePort, depth + 1) : { datatype: null, shape: null };
  }
  const spec = nodePorts(info.graph, node, info.catalogue).outputs.find((p) => p.name === port);
  return { datatype: spec?.datatype ?? null, shape: spec?.shape ? [...spec.shape] : null };
}

/** The type of the tensor arriving at input `port` of `nodeId` (null fields when unknown). */
export function arrivingType(info: GraphInfo, nodeId: string, port: string): PortType {
  const e = info.incoming.get(nodeId)?.get(port);
  const src = e ? info.byId.get(e.source) : undefined;
  return src && e ? producedType(info, src, e.sourcePort) : { datatype: null, shape: null };
}
