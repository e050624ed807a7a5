import { indexGraph, topoSort, type GraphIndex, type GraphLike } from './graphIndex.ts';
import type { GraphEdge, GraphNode, InputNode, OutputNode } from './types.ts';

/**
 * The node with this id, or undefined.
 * @example nodeById(graph, 'det')?.kind
 */
export function nodeById(graph: GraphLike, id: string): GraphNode | undefined {
  return graph.nodes.find((n) => n.id === id);
}

/**
 * Edges that end at `nodeId` (optionally at one input port).
 * @example edgesInto(graph, 'det', 'x').length === 1
 */
export function edgesInto(graph: GraphLike, nodeId: string, port?: string): GraphEdge[] {
  return graph.edges.filter((e) => e.target === nodeId && (port === undefined || e.targetPort === port));
}

/**
 * Edges that start at `nodeId` (optionally at one output port).
 * @example edgesOutOf(graph, 'det', 'prob').map((e) => e.target)
 */
export function edgesOutOf(graph: GraphLike, nodeId: string, port?: string): GraphEdge[] {
  return graph.edges.filter((e) => e.source === nodeId && (port === undefined || e.sourcePort === port));
}

function uniqueNodes(graph: GraphLike, ids: readonly string[]): GraphNode[] {
  const seen = new Set<string>();
  const out: GraphNode[] = [];
  for (const id of ids) {
    if (seen.has(id)) continue;
    seen.add(id);
    const n = nodeById(graph, id);
    if (n) out.push(n);
  }
  return out;
}

/**
 * Nodes with an edge into `nodeId` (each once).
 * @example incomers(graph, 'rec').map((n) => n.id) // ['crop']
 */
export function incomers(graph: GraphLike, nodeId: string): GraphNode[] {
  return uniqueNodes(
    graph,
    edgesInto(graph, nodeId).map((e) => e.source),
  );
}

/**
 * Nodes fed by an edge out of `nodeId` (each once).
 * @example outgoers(graph, 'det').map((n) => n.id) // ['db']
 */
export function outgoers(graph: GraphLike, nodeId: string): GraphNode[] {
  return uniqueNodes(
    graph,
    edgesOutOf(graph, nodeId).map((e) => e.target),
  );
}

/** @example inputNodes(graph).map((n) => n.params.name) */
export function inputNodes(graph: GraphLike): InputNode[] {
  return graph.nodes.filter((n): n is InputNode => n.kind === 'input');
}

/** @example outputNodes(graph).map((n) => n.params.name) */
export function outputNodes(graph: GraphLike): OutputNode[] {
  return graph.nodes.filter((n): n is OutputNode => n.kind === 'output');
}

export type TopoResult = { ok: true; order: string[] } | { ok: false; cycle: string[] };

/**
 * Node ids in dependency order (producers first, ties in document order), or one cycle.
 * @example const r = topoOrder(graph); if (r.ok) r.order.forEach(run); else console.log(r.cycle)
 */
export function topoOrder(graph: GraphLike): TopoResult {
  const index = indexGraph(graph);
  const { order, blocked } = topoSort(index);
  return blocked.length === 0 ? { ok: true, order } : { ok: false, cycle: cycleIn(index) ?? [] };
}

/**
 * One cycle as node ids in edge order (`[a, b, c]` means a→b→c→a), or null when the graph is acyclic.
 * @example findCycle(graph) // ['a', 'b'] for a→b→a
 */
export function findCycle(graph: GraphLike): string[] | null {
  return cycleIn(indexGraph(graph));
}

function cycleIn(index: GraphIndex): string[] | null {
  const state = new Map<string, 1 | 2>(); // 1 = on the path, 2 = done
  // Iterative DFS: a long chain must not exhaust the call stack.
  for (const root of index.ids) {
    if (state.get(root) !== undefined) continue;
    const path: string[] = [root];
    const next: number[] = [0];
    state.set(root, 1);
    while (path.length > 0) {
      const id = path[path.length - 1]!;
      const targets = index.successors(id);
      const i = next[next.length - 1]!;
      if (i >= targets.length) {
        state.set(id, 2);
        path.pop();
        next.pop();
        continue;
      }
      next[next.length - 1] = i + 1;
      const t = targets[i]!;
      if (state.get(t) === 1) return path.slice(path.indexOf(t));
      if (state.get(t) === undefined) {
        state.set(t, 1);
        path.push(t);
        next.push(0);
      }
    }
  }
  return null;
}

/** The graph's index: the one given, or one built for this call (callers in a loop pass theirs). */
function indexOf(graph: GraphLike | GraphIndex): GraphIndex {
  return 'successors' in graph ? graph : indexGraph(graph);
}

/**
 * Whether `to` can be reached from `from` by following edges (a node reaches itself).
 * @example reaches(graph, 'det', 'rec') // true when det feeds rec, directly or not
 */
export function reaches(graph: GraphLike | GraphIndex, from: string, to: string): boolean {
  const index = indexOf(graph);
  const seen = new Set<string>([from]);
  const todo = [from];
  while (todo.length > 0) {
    const id = todo.pop()!;
    if (id === to) return true;
    for (const t of index.successors(id))
      if (!seen.has(t)) {
        seen.add(t);
        todo.push(t);
      }
  }
  return false;
}

/**
 * Ids of every node upstream of `nodeId` (excluding itself).
 * @example ancestors(graph, 'rec') // Set {'crop', 'det', 'image'}
 */
export function ancestors(graph: GraphLike | GraphIndex, nodeId: string): Set<string> {
  const index = indexOf(graph);
  const seen = new Set<string>();
  const todo = [nodeId];
  while (todo.length > 0) {
    const id = todo.pop()!;
    for (const p of index.predecessors(id)) {
      if (!seen.has(p) && p !== nodeId) {
        seen.add(p);
        todo.push(p);
      }
    }
  }
  return seen;
}
