import type { GraphDoc, GraphEdge, GraphNode } from './types.ts';

/** The part of a graph document an index reads. */
export type GraphLike = Pick<GraphDoc, 'nodes' | 'edges'>;

/**
 * A graph's nodes and edges looked up by node id in constant time. `into`/`outOf` hold every edge of the
 * document, also one whose other end names no node (validation reports it); `successors`/`predecessors`
 * and the traversals only link nodes that exist. A node id used twice indexes its first node. Built once
 * per use (`indexGraph`), never cached on the document, so it is as current as the document it was
 * built from.
 */
export interface GraphIndex {
  readonly graph: GraphLike;
  /** Node ids in document order, each once. */
  readonly ids: readonly string[];
  /** The node with this id, or undefined. */
  node(id: string): GraphNode | undefined;
  /** Edges ending at `id` (at input `port` when given), in document order. */
  into(id: string, port?: string): readonly GraphEdge[];
  /** Edges starting at `id` (at output `port` when given), in document order. */
  outOf(id: string, port?: string): readonly GraphEdge[];
  /** Distinct nodes `id` feeds, in edge order. */
  successors(id: string): readonly string[];
  /** Distinct nodes feeding `id`, in edge order. */
  predecessors(id: string): readonly string[];
}

const NONE: readonly never[] = Object.freeze([]);

function push<T>(map: Map<string, T[]>, key: string, value: T): void {
  const list = map.get(key);
  if (list) list.push(value);
  else map.set(key, [value]);
}

const byPort = (edges: readonly GraphEdge[], port: string | undefined, end: 'sourcePort' | 'targetPort') =>
  port === undefined ? edges : edges.filter((e) => e[end] === port);

/**
 * Indexes `graph` for repeated lookups; O(nodes + edges).
 * @example const idx = indexGraph(graph); idx.into('det', 'x')[0]?.source
 */
export function indexGraph(graph: GraphLike): GraphIndex {
  const nodes = new Map<string, GraphNode>();
  for (const n of graph.nodes) if (!nodes.has(n.id)) nodes.set(n.id, n);
  const into = new Map<string, GraphEdge[]>();
  const outOf = new Map<string, GraphEdge[]>();
  const succ = new Map<string, string[]>();
  const pred = new Map<string, string[]>();
  const linked = new Set<string>();
  for (const e of graph.edges) {
    push(into, e.target, e);
    push(outOf, e.source, e);
    if (!nodes.has(e.source) || !nodes.has(e.target)) continue;
    const pair = `${e.source.length}:${e.source}${e.target}`;
    if (linked.has(pair)) continue;
    linked.add(pair);
    push(succ, e.source, e.target);
    push(pred, e.target, e.source);
  }
  return {
    graph,
    ids: [...nodes.keys()],
    node: (id) => nodes.get(id),
    into: (id, port) => byPort(into.get(id) ?? NONE, port, 'targetPort'),
    outOf: (id, port) => byPort(outOf.get(id) ?? NONE, port, 'sourcePort'),
    successors: (id) => succ.get(id) ?? NONE,
    predecessors: (id) => pred.get(id) ?? NONE,
  };
}

/** Node ids by their place in the document: the priority that breaks ties between ready nodes. */
class ReadyQueue {
  private readonly heap: number[] = [];
  constructor(private readonly ids: readonly string[]) {}
  get size(): number {
    return this.heap.length;
  }
  push(at: number): void {
    const h = this.heap;
    h.push(at);
    for (let i = h.length - 1; i > 0;) {
      const up = (i - 1) >> 1;
      if (h[up]! <= h[i]!) break;
      [h[up], h[i]] = [h[i]!, h[up]!];
      i = up;
    }
  }
  pop(): string {
    const h = this.heap;
    const top = h[0]!;
    const last = h.pop()!;
    if (h.length > 0) {
      h[0] = last;
      for (let i = 0; ;) {
        const l = 2 * i + 1;
        const r = l + 1;
        let min = i;
        if (l < h.length && h[l]! < h[min]!) min = l;
        if (r < h.length && h[r]! < h[min]!) min = r;
        if (min === i) break;
        [h[min], h[i]] = [h[i]!, h[min]!];
        i = min;
      }
    }
    return this.ids[top]!;
  }
}

/** A topological sort that always finishes: `order` holds every node it could place, `blocked` the rest. */
export interface TopoSort {
  /** Producers before consumers; among nodes ready at once, document order first. */
  order: string[];
  /** Nodes on a cycle or downstream of one, in document order (empty for an acyclic graph). */
  blocked: string[];
}

/**
 * Kahn's algorithm, iterative (a long chain cannot exhaust the stack), ties broken by document order.
 * @example topoSort(indexGraph(graph)).order // ['image', 'preprocess', 'det', …]
 */
export function topoSort(index: GraphIndex): TopoSort {
  const at = new Map(index.ids.map((id, i) => [id, i]));
  const waiting = new Map(index.ids.map((id) => [id, index.predecessors(id).length]));
  const ready = new ReadyQueue(index.ids);
  index.ids.forEach((id, i) => {
    if (waiting.get(id) === 0) ready.push(i);
  });
  const order: string[] = [];
  while (ready.size > 0) {
    const id = ready.pop();
    order.push(id);
    for (const t of index.successors(id)) {
      const left = waiting.get(t)! - 1;
      waiting.set(t, left);
      if (left === 0) ready.push(at.get(t)!);
    }
  }
  const placed = new Set(order);
  return { order, blocked: index.ids.filter((id) => !placed.has(id)) };
}
