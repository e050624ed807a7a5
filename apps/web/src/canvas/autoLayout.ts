import { Graph, layout } from '@dagrejs/dagre';
import type { GraphDoc, XY } from '@ensemble-studio/core';
import type { Size } from '../store/types.ts';

const DEFAULT_SIZE: Size = { width: 200, height: 120 };

/**
 * Left-to-right layered positions for every node (dagre), using the sizes React Flow measured.
 * Returns top-left positions for `moveNodes`; one call = one undo step.
 * @example actions.moveNodes(autoLayout(graph, measured))
 */
export function autoLayout(graph: Pick<GraphDoc, 'nodes' | 'edges'>, measured: Readonly<Record<string, Size>>): Record<string, XY> {
  const g = new Graph({ multigraph: true });
  g.setGraph({ rankdir: 'LR', nodesep: 40, ranksep: 90, marginx: 20, marginy: 20 });
  g.setDefaultEdgeLabel(() => ({}));
  for (const n of graph.nodes) {
    const size = measured[n.id] ?? DEFAULT_SIZE;
    g.setNode(n.id, { width: size.width, height: size.height });
  }
  for (const e of graph.edges) if (g.hasNode(e.source) && g.hasNode(e.target)) g.setEdge(e.source, e.target, {}, e.id);
  layout(g);
  const out: Record<string, XY> = {};
  for (const n of graph.nodes) {
    const p = g.node(n.id);
    const size = measured[n.id] ?? DEFAULT_SIZE;
    if (p) out[n.id] = { x: Math.round(p.x - size.width / 2), y: Math.round(p.y - size.height / 2) };
  }
  return out;
}
