import type { Catalogue, DataType, GraphDoc } from '@ensemble-studio/core';
import { effectiveModel, fullShape } from '@ensemble-studio/core';

/** One tensor of a model's KServe metadata: full shape (batch dim as -1 when batching). */
export interface MetaTensor {
  name: string;
  datatype: DataType;
  shape: number[];
  optional?: boolean;
}

export interface GraphSignature {
  inputs: MetaTensor[];
  outputs: MetaTensor[];
  /** The config's max_batch_size: > 0 when every input's first dim is the batch. */
  maxBatchSize: number;
}

/**
 * A graph's inputs and outputs as a Triton client sees them (from its input/output nodes).
 * @example graphSignature(graph).inputs.map((t) => t.name)
 */
export function graphSignature(graph: GraphDoc): GraphSignature {
  const inputs: MetaTensor[] = [];
  const outputs: MetaTensor[] = [];
  for (const n of graph.nodes) {
    if (n.kind === 'input') {
      inputs.push({
        name: n.params.name,
        datatype: n.params.datatype,
        shape: fullShape(n.params.dims, graph.maxBatchSize),
        ...(n.params.optional ? { optional: true } : {}),
      });
    } else if (n.kind === 'output') {
      outputs.push({
        name: n.params.name,
        datatype: n.params.datatype,
        shape: fullShape(n.params.dims, graph.maxBatchSize),
      });
    }
  }
  return { inputs, outputs, maxBatchSize: graph.maxBatchSize };
}

/**
 * True when Triton would treat the graph's ensemble as decoupled: a `gate` condition (a decoupled
 * Python gate) or a decoupled model step (node setting, else the model's config).
 * @example graphIsDecoupled(vadGraph, catalogue) === false
 */
export function graphIsDecoupled(graph: GraphDoc, catalogue: Catalogue): boolean {
  return graph.nodes.some((n) => {
    if (n.kind === 'condition') return n.params.strategy === 'gate';
    if (n.kind === 'model') return effectiveModel(n, catalogue)?.decoupled ?? false;
    return false;
  });
}

/** True when the graph holds a sequence-batched model (clients must send sequence id/start/end). */
export function graphIsStateful(graph: GraphDoc, catalogue: Catalogue): boolean {
  return graph.nodes.some((n) => n.kind === 'model' && effectiveModel(n, catalogue)?.sequenceBatching !== undefined);
}
