import type { GraphDoc } from '../graph/types.ts';

/** Column and row pitch of the auto-layout, in canvas pixels. */
export const LAYOUT_COLUMN_PX = 260;
export const LAYOUT_ROW_PX = 140;

/** Column of every node: the longest path from a source; output nodes share the last column. */
function columns(graph: Pick<GraphDoc, 'nodes' | 'edges'>): Map<string, number> {
  const ids = new Set(graph.nodes.map((n) => n.id));
  const preds = new Map<string, string[]>(graph.nodes.map((n) => [n.id, []]));
  for (const e of graph.edges) if (ids.has(e.source) && ids.has(e.target)) preds.get(e.target)!.push(e.source);
  const col = new Map<string, number>();
  const visiting = new Set<string>();
  const depth = (id: string): number => {
    const known = col.get(id);
    if (known !== undefined) return known;
    if (visiting.has(id)) return 0; // a cycle: break it here
    visiting.add(id);
    const d = Math.max(-1, ...(preds.get(id) ?? []).map(depth)) + 1;
    visiting.delete(id);
    col.set(id, d);
    return d;
  };
  for (const n of graph.nodes) depth(n.id);
  const last = Math.max(0, ...graph.nodes.filter((n) => n.kind !== 'output').map((n) => col.get(n.id)! + 1));
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
