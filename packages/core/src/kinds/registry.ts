import type { Catalogue } from '../catalogue/types.ts';
import { fullShape } from '../catalogue/types.ts';
import type { GraphDoc, GraphNode, NodeKind } from '../graph/types.ts';
import { schedulingOf } from '../config/nodeSettings.ts';
import { opDef } from '../ops/defs.ts';
import type { ParamSpec, PortSpec } from './params.ts';
import { catalogueModel } from '../catalogue/types.ts';

/** A node kind as data: what the palette shows and what every package reads. */
export interface KindDef {
  kind: NodeKind;
  title: string;
  description: string;
  /** Triton form it compiles to, shown in the palette. */
  compilesTo: string;
  params: ParamSpec[];
}

export const KIND_DEFS: Record<NodeKind, KindDef> = {
  input: {
    kind: 'input',
    title: 'Input',
    description: 'An ensemble input tensor.',
    compilesTo: 'ensemble input',
    params: [],
  },
  output: {
    kind: 'output',
    title: 'Output',
    description: 'An ensemble output tensor.',
    compilesTo: 'ensemble output',
    params: [],
  },
  model: {
    kind: 'model',
    title: 'Model',
    description: 'A model of the repository.',
    compilesTo: "ensemble step + the model's config.pbtxt",
    params: [],
  },
  router: {
    kind: 'router',
    title: 'Router',
    description: 'Fans one tensor out to several consumers.',
    compilesTo:
      'copy: generated Python model returning N copies; direct: one ensemble tensor mapped into several steps',
    params: [
      { name: 'mode', label: 'Mode', type: 'enum', default: 'copy', options: ['copy', 'direct'] },
      { name: 'count', label: 'Outputs', type: 'integer', default: 2, min: 1, max: 64 },
    ],
  },
  condition: {
    kind: 'condition',
    title: 'Condition',
    description: 'Ends the pipeline early when its expression holds.',
    compilesTo: 'gate: decoupled Python gate; bls: one Python BLS model; error: Python gate that fails the request',
    params: [
      { name: 'expression', label: 'Exit when', type: 'string', default: 'len(boxes) == 0' },
      { name: 'strategy', label: 'Strategy', type: 'enum', default: 'gate', options: ['gate', 'bls', 'error'] },
      { name: 'message', label: 'Error message', type: 'string', default: 'pipeline ended early' },
    ],
  },
  op: {
    kind: 'op',
    title: 'Op',
    description: 'A built-in pre/post-processing step.',
    compilesTo: 'generated Python model (numpy)',
    params: [],
  },
};

export interface NodePorts {
  inputs: PortSpec[];
  outputs: PortSpec[];
}

/**
 * The ports of a node. Model ports come from the catalogue (full shapes with the batch dim when the
 * effective max_batch_size > 0); router/condition ports have null dtype/shape (inferred from edges).
 * @example nodePorts(graph, node, catalogue).inputs.map((p) => p.name)
 */
export function nodePorts(graph: Pick<GraphDoc, 'maxBatchSize'>, node: GraphNode, catalogue: Catalogue): NodePorts {
  switch (node.kind) {
    case 'input':
      return {
        inputs: [],
        outputs: [
          {
            name: 'out',
            datatype: node.params.datatype,
            shape: fullShape(node.params.dims, graph.maxBatchSize),
            optional: node.params.optional,
          },
        ],
      };
    case 'output':
      return {
        inputs: [
          { name: 'in', datatype: node.params.datatype, shape: fullShape(node.params.dims, graph.maxBatchSize) },
        ],
        outputs: [],
      };
    case 'model': {
      const m = catalogueModel(catalogue, node.params.model);
      if (!m) return { inputs: [], outputs: [] };
      const mbs = schedulingOf(m.config, node.params.settings).maxBatchSize;
      const port = (t: (typeof m.inputs)[number]): PortSpec => ({
        name: t.name,
        datatype: t.datatype,
        shape: fullShape(t.dims, mbs),
        optional: t.optional,
      });
      return { inputs: m.inputs.map(port), outputs: m.outputs.map(port) };
    }
    case 'router':
      return {
        inputs: [{ name: 'in', datatype: null, shape: null }],
        outputs: Array.from({ length: Math.max(0, node.params.count) }, (_, i) => ({
          name: `out_${i}`,
          datatype: null,
          shape: null,
        })),
      };
    case 'condition':
      return {
        inputs: node.params.ports.map((name) => ({ name, datatype: null, shape: null })),
        outputs: node.params.ports.map((name) => ({ name, datatype: null, shape: null })),
      };
    case 'op': {
      const def = opDef(node.params.op);
      if (!def) return { inputs: [], outputs: [] };
      const clone = (p: PortSpec): PortSpec => ({ ...p, shape: p.shape ? [...p.shape] : null });
      const ports = { inputs: def.inputs.map(clone), outputs: def.outputs.map(clone) };
      if (def.id === 'crop_resize') {
        const h = Number(node.params.values.height ?? 48);
        ports.outputs[0]!.shape = [-1, 3, h, -1];
      }
      return ports;
    }
  }
}
