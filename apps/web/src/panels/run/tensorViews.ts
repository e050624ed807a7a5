import type { Catalogue, GraphDoc, TensorSummary } from '@ensemble-studio/core';
import type { RunState } from '../../store/types.ts';

export interface TopKRow {
  row: number;
  rank: number;
  index: number;
  value: number;
  label?: string;
}
export interface TopK {
  nodeId: string;
  indices: string;
  values: string;
  rows: TopKRow[];
}

/** Class labels where the graph makes them obvious: a 2-class orientation classifier (PaddleOCR `cls`). */
function labelsFor(graph: GraphDoc, catalogue: Catalogue, nodeId: string): string[] | undefined {
  for (const e of graph.edges) {
    if (e.target !== nodeId) continue;
    const src = graph.nodes.find((n) => n.id === e.source);
    if (src?.kind !== 'model') continue;
    const model = src.params.model;
    const out = catalogue.models[model]?.config.output?.find((o) => o.name === e.sourcePort);
    const classes = out?.dims[out.dims.length - 1];
    if (/^(cls|.*angle.*|.*orient.*)$/i.test(model) && (classes === 2 || classes === undefined)) return ['0°', '180°'];
  }
  return undefined;
}

/**
 * Top-k results among node outputs: an INT64 `indices`-like tensor with an FP32 tensor of the same
 * shape ([N,k] or [k]), both with full data; labelled where the producer is an obvious classifier.
 * @example findTopK(run, graph, catalogue)[0].rows[0] // { row: 0, rank: 0, index: 0, value: 0.98, label: '0°' }
 */
export function findTopK(run: RunState, graph: GraphDoc, catalogue: Catalogue): TopK[] {
  const found: TopK[] = [];
  for (const n of graph.nodes) {
    const outs = run.nodes[n.id]?.outputs;
    if (!outs) continue;
    const entries = Object.entries(outs).filter(([, t]) => t.data && (t.shape.length === 1 || t.shape.length === 2));
    const idx = entries
      .filter(([, t]) => t.datatype === 'INT64')
      .sort(([a], [b]) => Number(/ind/i.test(b)) - Number(/ind/i.test(a)))[0];
    if (!idx) continue;
    const same = (t: TensorSummary) => t.datatype === 'FP32' && t.shape.join() === idx[1].shape.join();
    const val = entries.find(([k, t]) => same(t) && /val|score|prob/i.test(k)) ?? entries.find(([, t]) => same(t));
    if (!val) continue;
    const k = idx[1].shape[idx[1].shape.length - 1] ?? 1;
    const labels = labelsFor(graph, catalogue, n.id);
    const rows = idx[1].data!.map((v, i) => {
      const index = Number(v);
      return {
        row: Math.floor(i / Math.max(1, k)),
        rank: i % Math.max(1, k),
        index,
        value: Number(val[1].data![i]),
        ...(labels?.[index] ? { label: labels[index] } : {}),
      };
    });
    found.push({ nodeId: n.id, indices: idx[0], values: val[0], rows });
  }
  return found;
}

/** A plane to draw: h×w values, and the width/height ratio of the tensor it stands for. */
export interface HeatmapData {
  h: number;
  w: number;
  data: number[];
  downsampled: boolean;
  aspect: number;
}

/**
 * What a heatmap can draw of an FP32 2-D/4-D tensor: the server's thumbnail, or the first plane of
 * its full data. Boxes ([N,4]), top-k pairs and vectors in disguise (a side of 1) are left out.
 */
export function heatmapOf(t: TensorSummary): HeatmapData | null {
  if (t.datatype !== 'FP32' || (t.shape.length !== 2 && t.shape.length !== 4)) return null;
  const h = t.shape[t.shape.length - 2]!;
  const w = t.shape[t.shape.length - 1]!;
  if (t.thumbnail)
    return {
      h: t.thumbnail.shape[0],
      w: t.thumbnail.shape[1],
      data: t.thumbnail.data,
      downsampled: true,
      aspect: w / Math.max(1, h),
    };
  if (!t.data || h < 2 || w < 2 || (t.shape.length === 2 && w === 4) || t.data.length < h * w) return null;
  return { h, w, data: t.data.slice(0, h * w).map(Number), downsampled: false, aspect: w / h };
}
