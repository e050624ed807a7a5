import type { GraphNode } from '@ensemble-studio/core';
import { placementKey } from './placement.ts';

/** `placementKey` of a node, remembered per node object: a stream's graph runs ~31 times a second. */
const nodeKeys = new WeakMap<GraphNode, { graph: string; id: string; key: string }>();

/**
 * The placer's key of node `node` of graph `graph` (placement.ts), made once per node object.
 * @example nodeKey('ocr', detNode) // placementKey('ocr', 'det')
 */
export function nodeKey(graph: string, node: GraphNode): string {
  const k = nodeKeys.get(node);
  if (k && k.graph === graph && k.id === node.id) return k.key;
  const key = placementKey(graph, node.id);
  nodeKeys.set(node, { graph, id: node.id, key });
  return key;
}
