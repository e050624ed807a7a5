import { propagateTypes, validateGraph } from '@ensemble-studio/core';
import type { Catalogue, Diagnostic, GraphDoc, PortType } from '@ensemble-studio/core';

// Types and diagnostics depend on the graph's structure, not on node positions. A drag replaces
// node objects but keeps their `params` and the `edges` array, so this key lets a drag reuse them.
interface StructureKey {
  edges: unknown;
  mbs: number;
  params: unknown[];
  ids: string[];
  labels: (string | undefined)[];
  catalogue: Catalogue;
}

function keyOf(graph: GraphDoc, catalogue: Catalogue): StructureKey {
  return {
    edges: graph.edges,
    mbs: graph.maxBatchSize,
    catalogue,
    params: graph.nodes.map((n) => n.params),
    ids: graph.nodes.map((n) => n.id),
    labels: graph.nodes.map((n) => n.label),
  };
}

function sameKey(a: StructureKey, b: StructureKey): boolean {
  if (a.edges !== b.edges || a.mbs !== b.mbs || a.catalogue !== b.catalogue || a.ids.length !== b.ids.length)
    return false;
  for (let i = 0; i < a.ids.length; i++) {
    if (a.ids[i] !== b.ids[i] || a.params[i] !== b.params[i] || a.labels[i] !== b.labels[i]) return false;
  }
  return true;
}

function structural<T>(
  compute: (graph: GraphDoc, catalogue: Catalogue) => T,
): (graph: GraphDoc, catalogue: Catalogue) => T {
  let last: { graph: GraphDoc; key: StructureKey; value: T } | null = null;
  return (graph, catalogue) => {
    if (last && last.graph === graph && last.key.catalogue === catalogue) return last.value;
    const key = keyOf(graph, catalogue);
    if (last && sameKey(last.key, key)) {
      last = { ...last, graph };
      return last.value;
    }
    last = { graph, key, value: compute(graph, catalogue) };
    return last.value;
  };
}

/** Every port's dtype/shape (router/condition ports inferred), memoised on the graph's structure. */
export const graphTypes: (graph: GraphDoc, catalogue: Catalogue) => Map<string, PortType> = structural(propagateTypes);

/** `validateGraph`, memoised on the graph's structure. */
export const graphDiagnostics: (graph: GraphDoc, catalogue: Catalogue) => Diagnostic[] = structural(validateGraph);

export interface NodeProblems {
  severity: 'error' | 'warning' | 'info';
  messages: string[];
}

/** Diagnostics grouped by node and by edge (worst severity first). */
export const diagnosticsByTarget = structural((graph, catalogue) => {
  const nodes = new Map<string, NodeProblems>();
  const edges = new Map<string, NodeProblems>();
  const add = (map: Map<string, NodeProblems>, id: string, d: Diagnostic) => {
    const cur = map.get(id);
    if (!cur) map.set(id, { severity: d.severity, messages: [d.message] });
    else {
      cur.messages.push(d.message);
      if (d.severity === 'error' || (d.severity === 'warning' && cur.severity === 'info')) cur.severity = d.severity;
    }
  };
  for (const d of graphDiagnostics(graph, catalogue)) {
    if (d.nodeId) add(nodes, d.nodeId, d);
    if (d.edgeId) add(edges, d.edgeId, d);
  }
  return { nodes, edges };
});
