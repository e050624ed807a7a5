import type { Catalogue } from '../catalogue/types.ts';
import { indexGraph, type GraphIndex } from '../graph/graphIndex.ts';
import type { GraphDoc, GraphNode, ModelNode } from '../graph/types.ts';
import { nodePorts, type NodePorts } from '../kinds/registry.ts';
import type { Diagnostic } from './diagnostic.ts';
import { propagateTypes, type PortType } from './propagate.ts';

/** What every rule reads, computed once per validation. */
export interface RuleContext {
  graph: GraphDoc;
  catalogue: Catalogue;
  ports: Map<string, NodePorts>;
  types: Map<string, PortType>;
  nodes: Map<string, GraphNode>;
  /** Edges by node, for rules that look at many nodes' edges. */
  index: GraphIndex;
}

export type Rule = (ctx: RuleContext) => Diagnostic[];

export function ruleContext(graph: GraphDoc, catalogue: Catalogue): RuleContext {
  const index = indexGraph(graph);
  return {
    graph,
    catalogue,
    ports: new Map(graph.nodes.map((n) => [n.id, nodePorts(graph, n, catalogue)])),
    types: propagateTypes(graph, catalogue, index),
    nodes: new Map(graph.nodes.map((n) => [n.id, n])),
    index,
  };
}

/** How a node is named in messages: its label, else its id, quoted. */
export const show = (n: GraphNode): string => `'${n.label ?? n.id}'`;

export const modelNodes = (graph: GraphDoc): ModelNode[] =>
  graph.nodes.filter((n): n is ModelNode => n.kind === 'model');
