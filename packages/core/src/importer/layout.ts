import type { GraphDoc } from '../graph/types.ts';

/** Column and row pitch of the auto-layout, in canvas pixels. */
export const LAYOUT_COLUMN_PX = 260;
export const LAYOUT_ROW_PX = 140;

/** Column of every node: the longest path from a source; output nodes share the last column. */
function columns(graph: Pick<GraphDoc, 'nodes' | 'edges'>): Map<string, number> {
  const ids = new Set(graph.nodes.map((n) => n.id));
  const succs = new Map<string, string[]>(graph.nodes.map((n) => [n.id, []]));
  const indegree = new Map<string, number>(graph.nodes.map((n) => [n.id, 0]));
  for (const e of graph.edges) {
    if (!ids.has(e.source) || !ids.has(e.target)) continue;
    succs.get(e.source)!.push(e.target);
    indegree.set(e.target, indegree.get(e.target)! + 1);
  }
  // Kahn's order (iterative, so long chains cannot exhaust the stack); nodes on a cycle never reach
  // indegree 0 and are placed after their known predecessors below.
  const col = new Map<string, number>();
  const ready = graph.nodes.filter((n) => indegree.get(n.id) === 0).map((n) => n.id);
  for (const id of ready) col.set(id, 0);
  for (let i = 0; i < ready.length; i++) {
    const id = ready[i]!;
    for (const t of succs.get(id)!) {
      col.set(t, Math.max(col.get(t) ?? 0, col.get(id)! + 1));
      const left = indegree.get(t)! - 1;
      indegree.set(t, left);
      if (left === 0) ready.push(t);
    }
  }
  for (const n of graph.nodes) if (!col.has(n.id)) col.set(n.id, 0);
  let last = 0;
  for (const n of graph.nodes) if (n.kind !== 'output') last = Math.max(last, col.get(n.id)! + 1);
  for (const n of graph.nodes) if (n.kind === 'output') col.set(n.id, Math.max(last, col.get(n.id)!));
  return col;
}

/**
 * Layered left→right layout: each node's column is its longest path from the graph's sources
 * (260 px apart), rows in document order within a column (140 px apart). Pure; returns a new doc.
 * @example layoutGraph(graph).nodes.map((n) => n.position)
 */
export function layoutGraph<G extends Pick<GraphDoc, 'nodes' | 'edges'>>(graph: G): G {
  const col = columns(graph);
  const rows = new Map<number, number>();
  const nodes = graph.nodes.map((n) => {
    const c = col.get(n.id) ?? 0;
    const r = rows.get(c) ?? 0;
    rows.set(c, r + 1);
    return { ...n, position: { x: c * LAYOUT_COLUMN_PX, y: r * LAYOUT_ROW_PX } };
  });
  return { ...graph, nodes };
}
