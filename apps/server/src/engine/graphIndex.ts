import type { GraphDoc, GraphEdge, GraphNode, OutputNode } from '@ensemble-studio/core';
import { findCycle } from '@ensemble-studio/core';
import { EngineError } from './errors.ts';

/** Edges of a graph indexed for the scheduler: per node, incoming ports and outgoing edges per port. */
export interface GraphIndex {
  nodes: Map<string, GraphNode>;
  /** node id → connected input ports. */
  inPorts: Map<string, Set<string>>;
  /** node id → source port → edges. */
  out: Map<string, Map<string, GraphEdge[]>>;
  /** node id → node ids directly downstream. */
  next: Map<string, Set<string>>;
  /** The graph's output nodes. */
  outputs: OutputNode[];
}

/**
 * Indexes a graph; rejects unknown node ids, an input port fed twice, and cycles, even though core
 * validation has already looked (the engine must never hang on a bad document).
 * @example const idx = indexGraph(graph); idx.inPorts.get('det')
 */
export function indexGraph(graph: GraphDoc): GraphIndex {
  const nodes = new Map<string, GraphNode>();
  for (const n of graph.nodes) {
    if (nodes.has(n.id))
      throw new EngineError('invalid-graph', `graph '${graph.name}' has two nodes with id '${n.id}'`);
    nodes.set(n.id, n);
  }
  const inPorts = new Map<string, Set<string>>(graph.nodes.map((n) => [n.id, new Set<string>()]));
  const out = new Map<string, Map<string, GraphEdge[]>>(graph.nodes.map((n) => [n.id, new Map()]));
  const next = new Map<string, Set<string>>(graph.nodes.map((n) => [n.id, new Set<string>()]));
  for (const e of graph.edges) {
    if (!nodes.has(e.source) || !nodes.has(e.target)) {
      throw new EngineError(
        'invalid-graph',
        `edge '${e.id}' of graph '${graph.name}' connects a node that does not exist`,
      );
    }
    const ports = inPorts.get(e.target)!;
    if (ports.has(e.targetPort))
      throw new EngineError('invalid-graph', `input '${e.targetPort}' of node '${e.target}' is connected twice`);
    ports.add(e.targetPort);
    const bySource = out.get(e.source)!;
    bySource.set(e.sourcePort, [...(bySource.get(e.sourcePort) ?? []), e]);
    next.get(e.source)!.add(e.target);
  }
  // core's traversal is iterative: a long chain must not exhaust the call stack.
  const cycle = findCycle(graph);
  if (cycle)
    throw new EngineError('invalid-graph', `graph '${graph.name}' has a cycle: ${[...cycle, cycle[0]].join(' → ')}`);
  return { nodes, inPorts, out, next, outputs: graph.nodes.filter((n): n is OutputNode => n.kind === 'output') };
}

/** Per graph document, something derived from its nodes and edges (see `memoByGraph`). */
export type GraphMemo<T> = WeakMap<
  GraphDoc,
  { nodes: GraphDoc['nodes']; edges: GraphDoc['edges']; n: number; e: number; value: T }
>;

/**
 * `build(graph)`, remembered per graph document: a stream runs the same graph ~31 times a second.
 * Rebuilt when the document's node or edge list is replaced or changes length; what it returns is
 * shared by every run, so callers must not change it.
 * @example const MEMO: GraphMemo<GraphIndex> = new WeakMap(); memoByGraph(MEMO, graph, indexGraph)
 */
export function memoByGraph<T>(memo: GraphMemo<T>, graph: GraphDoc, build: (graph: GraphDoc) => T): T {
  const hit = memo.get(graph);
  if (hit && current(hit, graph)) return hit.value;
  const value = build(graph);
  memo.set(graph, { nodes: graph.nodes, edges: graph.edges, n: graph.nodes.length, e: graph.edges.length, value });
  return value;
}

/** What `memoByGraph` remembers for `graph`, or undefined when it has nothing current (nothing is built). */
export function peekByGraph<T>(memo: GraphMemo<T>, graph: GraphDoc): T | undefined {
  const hit = memo.get(graph);
  return hit && current(hit, graph) ? hit.value : undefined;
}

function current(hit: { nodes: GraphDoc['nodes']; edges: GraphDoc['edges']; n: number; e: number }, graph: GraphDoc) {
  return (
    hit.nodes === graph.nodes &&
    hit.edges === graph.edges &&
    hit.n === graph.nodes.length &&
    hit.e === graph.edges.length
  );
}

/** Whether every edge out of `nodeId` goes to one of the graph's output nodes. */
export function feedsOnlyOutputs(idx: GraphIndex, nodeId: string): boolean {
  for (const edges of idx.out.get(nodeId)!.values())
    for (const e of edges) if (idx.nodes.get(e.target)?.kind !== 'output') return false;
  return true;
}
