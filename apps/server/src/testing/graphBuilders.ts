// Terse builders of graph documents for tests that spell out a small graph node by node.
import type { GraphDoc, GraphEdge, GraphNode } from '@ensemble-studio/core';

const pos = { x: 0, y: 0 };

/** A graph input or output node `id` named as its id: a [1] tensor of `datatype`, optional when asked. */
export const ioNode = (
  kind: 'input' | 'output',
  id: string,
  o: { datatype?: string; optional?: boolean } = {},
): GraphNode =>
  ({
    id,
    kind,
    position: pos,
    params: { name: id, datatype: o.datatype ?? 'FP32', dims: [1], ...(o.optional ? { optional: true } : {}) },
  }) as GraphNode;

/** A model node `id` running model `model` (its id when not given). */
export const modelNode = (id: string, model = id): GraphNode => ({
  id,
  kind: 'model',
  position: pos,
  params: { model },
});

/** An edge from `source`'s port to `target`'s, its id made of both ends. */
export const edgeOf = (source: string, sourcePort: string, target: string, targetPort: string): GraphEdge => ({
  id: `${source}.${sourcePort}-${target}.${targetPort}`,
  source,
  sourcePort,
  target,
  targetPort,
});

/** A graph document `name` (unbatched) of these nodes and edges. */
export const graphOf = (nodes: GraphNode[], edges: GraphEdge[], name = 'g'): GraphDoc => ({
  version: 1,
  name,
  maxBatchSize: 0,
  nodes,
  edges,
});
