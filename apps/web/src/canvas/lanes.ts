import type { GraphEdge, GraphNode } from '@ensemble-studio/core';
import type { EditorState, Size } from '../store/types.ts';

const DEFAULT_SIZE: Size = { width: 176, height: 80 };
/** The thinnest strip free of nodes that edges may run along. */
const MIN_LANE_PX = 36;
/** Vertical distance between edges sharing a lane, so they and their labels stay apart. */
const SLOT_PX = 17;

/** Centres and heights of the horizontal strips no node overlaps (between a wrapped layout's bands), top to bottom. */
export function freeLanes(boxes: { top: number; bottom: number }[]): { y: number; height: number }[] {
  const sorted = [...boxes].sort((a, b) => a.top - b.top);
  const lanes: { y: number; height: number }[] = [];
  let reach = -Infinity;
  for (const b of sorted) {
    if (reach !== -Infinity && b.top - reach >= MIN_LANE_PX)
      lanes.push({ y: (reach + b.top) / 2, height: b.top - reach });
    reach = Math.max(reach, b.bottom);
  }
  return lanes;
}

/**
 * The y of every backward edge (its target left of its source: the next band of a wrapped layout): the lowest free
 * lane above its target, edges sharing a lane spread across it. Edges with no such lane are absent (drawn as curves).
 */
export function edgeLanes(
  graph: {
    nodes: readonly Pick<GraphNode, 'id' | 'position'>[];
    edges: readonly Pick<GraphEdge, 'id' | 'source' | 'target'>[];
  },
  measured: Readonly<Record<string, Size>>,
): Map<string, number> {
  const box = new Map(
    graph.nodes.map((n) => {
      const size = measured[n.id] ?? DEFAULT_SIZE;
      return [
        n.id,
        { x: n.position.x, top: n.position.y, bottom: n.position.y + size.height, right: n.position.x + size.width },
      ];
    }),
  );
  const lanes = freeLanes([...box.values()]);
  const byLane = new Map<number, { id: string; order: number }[]>();
  for (const e of graph.edges) {
    const s = box.get(e.source);
    const t = box.get(e.target);
    if (!s || !t || t.x >= s.right) continue;
    let pick = -1;
    lanes.forEach((l, i) => {
      if (l.y < t.top && l.y > Math.min(s.top, t.top)) pick = i;
    });
    if (pick < 0) continue;
    (byLane.get(pick) ?? byLane.set(pick, []).get(pick)!).push({ id: e.id, order: t.top * 1e3 + s.top });
  }
  const out = new Map<string, number>();
  for (const [i, edges] of byLane) {
    const lane = lanes[i]!;
    const step = Math.min(SLOT_PX, (lane.height - 12) / Math.max(1, edges.length));
    edges.sort((a, b) => a.order - b.order);
    // Edges to higher targets run higher, so no two cross on the way down.
    edges.forEach((e, k) => out.set(e.id, Math.round(lane.y + (k - (edges.length - 1) / 2) * step)));
  }
  return out;
}

/** `edgeLanes` of the current graph; kept while a node is dragged (recomputed when it drops), so a drag re-renders no edge. */
export const selectEdgeLanes = (() => {
  let last: { nodes: unknown; edges: unknown; measured: unknown; lanes: Map<string, number> } | null = null;
  return (s: EditorState): Map<string, number> => {
    const { nodes, edges } = s.doc.graph;
    if (last && (s.ui.dragging || (last.nodes === nodes && last.edges === edges && last.measured === s.ui.measured)))
      return last.lanes;
    last = { nodes, edges, measured: s.ui.measured, lanes: edgeLanes(s.doc.graph, s.ui.measured) };
    return last.lanes;
  };
})();
