import type { GraphDoc, Tensor } from '@ensemble-studio/core';
import { fullShape, tensorFromJson, zeros } from '@ensemble-studio/core';
import type { GraphIndex } from './graphIndex.ts';

/**
 * The outputs a `bls` early exit returns: each output's declared default
 * (`params.defaults[name]` of the condition), else an empty tensor whose first variable dim is 0
 * (other variable dims 1), e.g. texts [-1] → [0].
 * @example exitDefaults(graph, idx, 'has_text').texts.shape // [0]
 */
export function exitDefaults(graph: GraphDoc, idx: GraphIndex, conditionId: string): Record<string, Tensor> {
  const cond = idx.nodes.get(conditionId);
  const defaults = cond?.kind === 'condition' ? (cond.params.defaults ?? {}) : {};
  const out: Record<string, Tensor> = {};
  for (const node of idx.nodes.values()) {
    if (node.kind !== 'output') continue;
    const { name, datatype, dims } = node.params;
    const d = Object.hasOwn(defaults, name) ? defaults[name] : undefined;
    if (d) {
      out[name] = tensorFromJson(datatype, d.shape, d.data);
      continue;
    }
    let zeroed = false;
    const shape = fullShape(dims, graph.maxBatchSize).map((x) => {
      if (x >= 0) return x;
      if (zeroed) return 1;
      zeroed = true;
      return 0;
    });
    out[name] = zeros(datatype, zeroed ? shape : [0, ...shape.slice(1)]);
  }
  return out;
}
