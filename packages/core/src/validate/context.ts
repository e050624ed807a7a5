import type { Catalogue, CatalogueModel } from '../catalogue/types.ts';
import type { GraphDoc, GraphNode, ModelNode } from '../graph/types.ts';
import { nodePorts, type NodePorts } from '../kinds/registry.ts';
import type { SequenceBatching, DynamicBatching, InstanceGroup } from '../pbtxt/modelConfig.ts';
import type { Diagnostic } from './diagnostic.ts';
import { propagateTypes, type PortType } from './propagate.ts';
import { catalogueModel } from '../catalogue/types.ts';

/** What every rule reads, computed once per validation. */
export interface RuleContext {
  graph: GraphDoc;
  catalogue: Catalogue;
  ports: Map<string, NodePorts>;
  types: Map<string, PortType>;
  nodes: Map<string, GraphNode>;
}

export type Rule = (ctx: RuleContext) => Diagnostic[];

export function ruleContext(graph: GraphDoc, catalogue: Catalogue): RuleContext {
  return {
    graph,
    catalogue,
    ports: new Map(graph.nodes.map((n) => [n.id, nodePorts(graph, n, catalogue)])),
    types: propagateTypes(graph, catalogue),
    nodes: new Map(graph.nodes.map((n) => [n.id, n])),
  };
}

/** How a node is named in messages: its label, else its id, quoted. */
export const show = (n: GraphNode): string => `'${n.label ?? n.id}'`;

/** The config a model node runs with: repository config overridden by the node's settings. */
export interface EffectiveModel {
  model: CatalogueModel;
  maxBatchSize: number;
  decoupled: boolean;
  instanceGroup: InstanceGroup[] | undefined;
  dynamicBatching: DynamicBatching | undefined;
  sequenceBatching: SequenceBatching | undefined;
}

/** @example effectiveModel(node, catalogue)?.maxBatchSize */
export function effectiveModel(node: ModelNode, catalogue: Catalogue): EffectiveModel | undefined {
  const model = catalogueModel(catalogue, node.params.model);
  if (!model) return undefined;
  const s = node.params.settings ?? {};
  const pick = <T>(v: T | null | undefined, fallback: T | undefined): T | undefined =>
    v === null ? undefined : (v ?? fallback);
  return {
    model,
    maxBatchSize: s.max_batch_size ?? model.maxBatchSize,
    decoupled: s.decoupled ?? model.decoupled,
    instanceGroup: s.instance_group ?? model.config.instance_group,
    dynamicBatching: pick(s.dynamic_batching, model.config.dynamic_batching),
    sequenceBatching: pick(s.sequence_batching, model.config.sequence_batching),
  };
}

export const modelNodes = (graph: GraphDoc): ModelNode[] =>
  graph.nodes.filter((n): n is ModelNode => n.kind === 'model');
