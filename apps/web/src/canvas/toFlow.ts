import type { Edge, Node } from '@xyflow/react';
import { formatShape, nodePorts, portKey } from '@ensemble-studio/core';
import type { Catalogue, DataType, GraphDoc, GraphEdge, GraphNode, PortType } from '@ensemble-studio/core';
import { diagnosticsByTarget, graphTypes, type NodeProblems } from '../store/derived.ts';
import { modelFacts, type ModelFacts } from '../nodes/modelFacts.ts';
import type { EditorState, Selection, Size } from '../store/types.ts';

/** A port as the canvas draws it: name plus the (possibly inferred) dtype and full shape; a wired one's type is on its edge. */
export interface PortView {
  name: string;
  datatype: DataType | null;
  shape: number[] | null;
  optional?: boolean;
  wired: boolean;
}

export interface PipelineData extends Record<string, unknown> {
  node: GraphNode;
  inputs: PortView[];
  outputs: PortView[];
  problems: NodeProblems | null;
  /** Backend, file and streaming nature of a model node. */
  model: ModelFacts | null;
}
export type PipelineFlowNode = Node<PipelineData, 'pipeline'>;
export type TensorFlowEdge = Edge<{
  severity: NodeProblems['severity'] | null;
  messages: string[];
  /** This edge's place among the edges into the same node (top to bottom) and how many there are. */
  stack: [number, number];
}>;

function portViews(
  graph: GraphDoc,
  node: GraphNode,
  catalogue: Catalogue,
  types: Map<string, PortType>,
  wired: Set<string>,
) {
  const ports = nodePorts(graph, node, catalogue);
  const view = (p: (typeof ports.inputs)[number], dir: 'in' | 'out'): PortView => {
    const t = types.get(portKey(node.id, p.name));
    return {
      name: p.name,
      datatype: p.datatype ?? t?.datatype ?? null,
      shape: p.shape ?? t?.shape ?? null,
      optional: p.optional,
      wired: wired.has(`${dir}:${portKey(node.id, p.name)}`),
    };
  };
  return { inputs: ports.inputs.map((p) => view(p, 'in')), outputs: ports.outputs.map((p) => view(p, 'out')) };
}

/** `in:`/`out:` + port key of every wired port (the edges array is replaced on every structural change). */
const wiredPorts = (() => {
  let last: { edges: GraphDoc['edges']; out: Set<string> } | null = null;
  return (edges: GraphDoc['edges']): Set<string> => {
    if (last?.edges === edges) return last.out;
    const out = new Set<string>();
    for (const e of edges) {
      out.add(`out:${portKey(e.source, e.sourcePort)}`);
      out.add(`in:${portKey(e.target, e.targetPort)}`);
    }
    last = { edges, out };
    return out;
  };
})();

interface CacheEntry {
  src: GraphNode;
  selected: boolean;
  size: Size | undefined;
  types: unknown;
  wired: Set<string>;
  problems: NodeProblems | null;
  flow: PipelineFlowNode;
}

/**
 * The GraphDoc ↔ React Flow adapter: one `pipeline` node per graph node, reusing the previous flow
 * node object when nothing it shows changed (so React Flow skips it during a drag of others).
 */
export function createToFlowNodes() {
  let cache = new Map<string, CacheEntry>();
  let last: { graph: GraphDoc; selection: Selection; measured: Record<string, Size>; out: PipelineFlowNode[] } | null =
    null;
  return (s: EditorState): PipelineFlowNode[] => {
    const { graph } = s.doc;
    const { selection, measured } = s.ui;
    if (last && last.graph === graph && last.selection === selection && last.measured === measured) return last.out;
    const types = graphTypes(graph, s.catalogue);
    const diags = diagnosticsByTarget(graph, s.catalogue);
    const selected = new Set(selection.nodes);
    const wired = wiredPorts(graph.edges);
    const next = new Map<string, CacheEntry>();
    const out = graph.nodes.map((n) => {
      const entry = cache.get(n.id);
      const isSel = selected.has(n.id);
      const size = measured[n.id];
      const problems = diags.nodes.get(n.id) ?? null;
      if (
        entry &&
        entry.src === n &&
        entry.selected === isSel &&
        entry.size === size &&
        entry.types === types &&
        entry.wired === wired &&
        entry.problems === problems
      ) {
        next.set(n.id, entry);
        return entry.flow;
      }
      const flow: PipelineFlowNode = {
        id: n.id,
        type: 'pipeline',
        position: n.position,
        selected: isSel,
        data: {
          node: n,
          ...portViews(graph, n, s.catalogue, types, wired),
          problems,
          model: n.kind === 'model' ? modelFacts(s.catalogue.models[n.params.model], n.params.settings) : null,
        },
        ...(size ? { measured: size } : {}),
      };
      next.set(n.id, { src: n, selected: isSel, size, types, wired, problems, flow });
      return flow;
    });
    cache = next;
    last = { graph, selection, measured, out };
    return out;
  };
}

/** `FP32 [1,3,-1,-1]`, or `?` when nothing typed feeds the port yet. */
function tensorLabel(t: PortType | undefined): string {
  if (!t || t.datatype === null) return '?';
  return `${t.datatype} ${formatShape(t.shape)}`;
}

/**
 * For every edge, its place among the edges into the same node, ordered as that node's input ports are (top to
 * bottom), and their number: their labels sit in the gap before that node and are spread apart by it.
 */
function edgesIntoNodes(graph: GraphDoc, catalogue: Catalogue): Map<string, [number, number]> {
  const groups = new Map<string, GraphEdge[]>();
  for (const e of graph.edges) (groups.get(e.target) ?? groups.set(e.target, []).get(e.target)!).push(e);
  const out = new Map<string, [number, number]>();
  const nodes = new Map(graph.nodes.map((n) => [n.id, n]));
  for (const [target, group] of groups) {
    const node = nodes.get(target);
    if (group.length > 1 && node) {
      const ins = nodePorts(graph, node, catalogue).inputs.map((p) => p.name);
      group.sort((a, b) => ins.indexOf(a.targetPort) - ins.indexOf(b.targetPort));
    }
    group.forEach((e, i) => out.set(e.id, [i, group.length]));
  }
  return out;
}

/** Edges labelled with the tensor's dtype/shape and marked with their diagnostics. */
export function createToFlowEdges() {
  let last: {
    edges: unknown;
    types: unknown;
    diags: unknown;
    selection: Selection;
    running: unknown;
    out: TensorFlowEdge[];
  } | null = null;
  return (s: EditorState): TensorFlowEdge[] => {
    const { graph } = s.doc;
    const types = graphTypes(graph, s.catalogue);
    const diags = diagnosticsByTarget(graph, s.catalogue);
    if (
      last &&
      last.edges === graph.edges &&
      last.types === types &&
      last.diags === diags &&
      last.selection === s.ui.selection &&
      last.running === s.run.nodes
    )
      return last.out;
    const selected = new Set(s.ui.selection.edges);
    const stacks = edgesIntoNodes(graph, s.catalogue);
    const out = graph.edges.map((e): TensorFlowEdge => {
      const problems = diags.edges.get(e.id);
      const flowing = s.run.nodes[e.source]?.status === 'finished' && s.run.nodes[e.target]?.status === 'running';
      return {
        id: e.id,
        type: 'tensor',
        source: e.source,
        sourceHandle: e.sourcePort,
        target: e.target,
        targetHandle: e.targetPort,
        selected: selected.has(e.id),
        animated: flowing,
        label: tensorLabel(types.get(portKey(e.source, e.sourcePort))),
        className: problems ? `edge-${problems.severity}` : undefined,
        data: {
          severity: problems?.severity ?? null,
          messages: problems?.messages ?? [],
          stack: stacks.get(e.id) ?? [0, 1],
        },
      };
    });
    last = { edges: graph.edges, types, diags, selection: s.ui.selection, running: s.run.nodes, out };
    return out;
  };
}
