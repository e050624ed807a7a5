import { indexGraph, topoSort } from './graphIndex.ts';
import type { GraphDoc, XY } from './types.ts';

/** A node's box on the canvas, in canvas pixels. */
export interface LayoutSize {
  width: number;
  height: number;
}

export interface LayoutOptions {
  /** Sizes the editor measured; a node without one gets an estimate from how many ports it wires. */
  sizes?: Readonly<Record<string, LayoutSize>>;
  /**
   * The view (canvas pixels on screen) the graph should fill. Given, a graph too wide for it is wrapped into bands
   * of columns stacked top to bottom (as text wraps): as few bands as show it largest, up to its natural size.
   * Absent: one band, left to right.
   */
  view?: LayoutSize;
}

/** Width the layout assumes for a node it has no measured size for (the editor's node width). */
const LAYOUT_NODE_WIDTH = 176;
/** Space between columns (room for an edge's dtype/shape label), between nodes of a column, between bands. */
export const LAYOUT_GAP = { column: 110, row: 28, band: 90 } as const;
/** Column pitch when every node has the default width. */
export const LAYOUT_COLUMN_PX = LAYOUT_NODE_WIDTH + LAYOUT_GAP.column;
/** The view the importer lays graphs out for: the editor's canvas on a 1440×900 screen with its panels open. */
export const IMPORT_VIEW: LayoutSize = { width: 900, height: 700 };

type Graph = Pick<GraphDoc, 'nodes' | 'edges'>;

interface Wiring {
  preds: Map<string, string[]>;
  succs: Map<string, string[]>;
  ports: Map<string, number>;
}

function wiring(graph: Graph): Wiring {
  const ids = new Set(graph.nodes.map((n) => n.id));
  const preds = new Map<string, string[]>(graph.nodes.map((n) => [n.id, []]));
  const succs = new Map<string, string[]>(graph.nodes.map((n) => [n.id, []]));
  const inPorts = new Map<string, Set<string>>();
  const outPorts = new Map<string, Set<string>>();
  const add = (m: Map<string, Set<string>>, id: string, port: string) =>
    (m.get(id) ?? m.set(id, new Set()).get(id)!).add(port);
  for (const e of graph.edges) {
    if (!ids.has(e.source) || !ids.has(e.target)) continue;
    succs.get(e.source)!.push(e.target);
    preds.get(e.target)!.push(e.source);
    add(outPorts, e.source, e.sourcePort);
    add(inPorts, e.target, e.targetPort);
  }
  const ports = new Map(
    graph.nodes.map((n) => [n.id, Math.max(1, inPorts.get(n.id)?.size ?? 0, outPorts.get(n.id)?.size ?? 0)]),
  );
  return { preds, succs, ports };
}

/** Column of every node: the longest path from a source, over core's topological order. */
function columns(graph: Graph, w: Wiring): Map<string, number> {
  const { order, blocked } = topoSort(indexGraph(graph));
  const col = new Map<string, number>();
  for (const id of order)
    col.set(
      id,
      w.preds.get(id)!.reduce((c, p) => Math.max(c, col.get(p)! + 1), 0),
    );
  // Nodes on or after a cycle have no longest path: they start a column of their own.
  for (const id of blocked) col.set(id, 0);
  return col;
}

/** Nodes of each column, ordered so edges cross less: each by the mean position of its predecessors (one sweep). */
function orderColumns(graph: Graph, col: Map<string, number>, w: Wiring): string[][] {
  let count = 1;
  for (const c of col.values()) count = Math.max(count, c + 1);
  const cols: string[][] = Array.from({ length: count }, () => []);
  for (const n of graph.nodes) cols[col.get(n.id)!]!.push(n.id);
  const rank = new Map<string, number>();
  cols[0]!.forEach((id, i) => rank.set(id, i));
  for (let c = 1; c < count; c++) {
    const key = new Map<string, number>();
    cols[c]!.forEach((id, i) => {
      const ps = w.preds.get(id)!.filter((p) => rank.has(p));
      key.set(id, ps.length ? ps.reduce((a, p) => a + rank.get(p)!, 0) / ps.length : i);
    });
    cols[c]!.sort((a, b) => key.get(a)! - key.get(b)!);
    cols[c]!.forEach((id, i) => rank.set(id, i));
  }
  return cols;
}

const stackHeight = (ids: string[], size: (id: string) => LayoutSize) =>
  ids.reduce((h, id) => h + size(id).height, 0) + Math.max(0, ids.length - 1) * LAYOUT_GAP.row;

/** Scale at which the editor's text stays legible: a graph shown at least this large is not wrapped further. */
const LEGIBLE_SCALE = 0.8;

/**
 * Columns per band: the fewest bands that show the graph at a legible scale in the view, else the split that shows
 * it largest (never counting scales above natural size; near-ties go to fewer bands).
 */
function columnsPerBand(widths: number[], heights: number[], view: LayoutSize): number {
  const n = widths.length;
  const scales = new Map<number, number>();
  // Balanced splits (b bands of ceil(n / b) columns) for up to 64 bands, then coarser steps: a 50,000-column chain
  // stays fast.
  const candidates = new Set<number>();
  for (let b = 1; b <= Math.min(n, 64); b++) candidates.add(Math.ceil(n / b));
  for (let b = 64; b < n; b = Math.ceil(b * 1.25)) candidates.add(Math.ceil(n / b));
  candidates.add(1);
  for (const k of candidates) {
    let width = 0;
    let height = 0;
    for (let start = 0; start < n; start += k) {
      let bw = 0;
      let bh = 0;
      for (let c = start; c < Math.min(n, start + k); c++) {
        bw += widths[c]! + (c > start ? LAYOUT_GAP.column : 0);
        bh = Math.max(bh, heights[c]!);
      }
      width = Math.max(width, bw);
      height += bh + (start > 0 ? LAYOUT_GAP.band : 0);
    }
    scales.set(k, Math.min(view.width / width, view.height / height, 1));
  }
  const byBands = [...scales].sort((a, b) => b[0] - a[0]);
  const legible = byBands.find(([, scale]) => scale >= LEGIBLE_SCALE);
  if (legible) return legible[0];
  const top = Math.max(...scales.values());
  return byBands.find(([, scale]) => scale >= top * 0.97)![0];
}

/**
 * Top-left positions of a layered left→right layout: each node's column is its longest path from the graph's
 * sources; within a column nodes follow their predecessors' order and sit level with them where there is room.
 * With `view`, long graphs wrap into bands. Pure.
 * @example layoutPositions(graph, { sizes: measured, view: { width: 900, height: 700 } }).det // { x: 304, y: 0 }
 */
export function layoutPositions(graph: Graph, opts: LayoutOptions = {}): Record<string, XY> {
  const w = wiring(graph);
  const size = (id: string): LayoutSize =>
    opts.sizes?.[id] ?? { width: LAYOUT_NODE_WIDTH, height: 52 + 18 * w.ports.get(id)! };
  const cols = orderColumns(graph, columns(graph, w), w);
  const widths = cols.map((ids) => ids.reduce((m, id) => Math.max(m, size(id).width), 0));
  const heights = cols.map((ids) => stackHeight(ids, size));
  const perBand =
    opts.view && opts.view.width > 0 && opts.view.height > 0 && cols.length > 1
      ? columnsPerBand(widths, heights, opts.view)
      : cols.length;
  const out: Record<string, XY> = {};
  const band = new Map<string, number>();
  let top = 0;
  for (let start = 0; start < cols.length; start += perBand) {
    let x = 0;
    let bottom = top;
    for (let c = start; c < Math.min(cols.length, start + perBand); c++) {
      let next = top;
      for (const id of cols[c]!) {
        const h = size(id).height;
        // Level with the predecessors in this band (their mean centre), never above the node before it.
        const ps = w.preds.get(id)!.filter((p) => band.get(p) === start && out[p]);
        const want = ps.length ? ps.reduce((a, p) => a + out[p]!.y + size(p).height / 2, 0) / ps.length - h / 2 : top;
        const y = Math.max(next, Math.round(want));
        out[id] = { x, y };
        band.set(id, start);
        next = y + h + LAYOUT_GAP.row;
        bottom = Math.max(bottom, y + h);
      }
      x += widths[c]! + LAYOUT_GAP.column;
    }
    top = bottom + LAYOUT_GAP.band;
  }
  return out;
}

/**
 * The graph with every node at its `layoutPositions` place. Pure; returns a new doc, edges untouched.
 * @example layoutGraph(graph, { view: IMPORT_VIEW }).nodes.map((n) => n.position)
 */
export function layoutGraph<G extends Graph>(graph: G, opts: LayoutOptions = {}): G {
  const at = layoutPositions(graph, opts);
  return { ...graph, nodes: graph.nodes.map((n) => ({ ...n, position: at[n.id] ?? n.position })) };
}
