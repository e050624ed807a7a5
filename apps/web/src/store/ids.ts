import type { GraphDoc } from '@ensemble-studio/core';
import type { NodeTemplate } from './types.ts';

/** Triton-safe id base for a new node: the model/op name, or the kind. */
export function baseId(t: NodeTemplate): string {
  const raw = t.kind === 'model' ? (t.model ?? 'model') : t.kind === 'op' ? (t.op ?? 'op') : t.kind;
  return raw.replace(/[^A-Za-z0-9_]/g, '_') || 'node';
}

/**
 * A fresh id factory over a graph: `base`, then `base_2`, `base_3`, … skipping every id taken by
 * nodes, edges and previously issued ids.
 * @example const next = idFactory(graph); next('det') // 'det_2' when 'det' exists
 */
export function idFactory(graph: Pick<GraphDoc, 'nodes' | 'edges'>): (base: string) => string {
  const taken = new Set<string>([...graph.nodes.map((n) => n.id), ...graph.edges.map((e) => e.id)]);
  return (base) => {
    const stem = base.replace(/_\d+$/, '') || base;
    let id = taken.has(base) ? `${stem}_2` : base;
    for (let i = 3; taken.has(id); i++) id = `${stem}_${i}`;
    taken.add(id);
    return id;
  };
}

/** The id the editor gives an edge: readable, like the example graphs. */
export const edgeId = (c: { source: string; sourcePort: string; target: string; targetPort: string }): string =>
  `${c.source}.${c.sourcePort}->${c.target}.${c.targetPort}`;
