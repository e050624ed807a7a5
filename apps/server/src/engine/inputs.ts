import type { GraphDoc, Tensor } from '@ensemble-studio/core';
import { elementCount, fullShape } from '@ensemble-studio/core';
import { EngineError } from './errors.ts';
import { memoByGraph, type GraphMemo } from './graphIndex.ts';
import { shapeText } from './tensors.ts';

interface InputSpec {
  name: string;
  datatype: string;
  optional: boolean;
  want: number[];
}

/** Each graph document's input specs, worked out once for all its runs (a stream checks ~31 chunks a second). */
const SPECS: GraphMemo<Map<string, InputSpec>> = new WeakMap();

function inputSpecs(graph: GraphDoc): Map<string, InputSpec> {
  return memoByGraph(SPECS, graph, readInputSpecs);
}

/** The graph's input nodes by tensor name, with their full shapes (batch dim included). */
function readInputSpecs(graph: GraphDoc): Map<string, InputSpec> {
  return new Map(
    graph.nodes.flatMap((n) =>
      n.kind === 'input'
        ? [
            [
              n.params.name,
              {
                name: n.params.name,
                datatype: n.params.datatype,
                optional: n.params.optional === true,
                want: fullShape(n.params.dims, graph.maxBatchSize),
              },
            ] as const,
          ]
        : [],
    ),
  );
}

/**
 * Checks a run's tensors against the graph's input nodes: no unknown names, every required input
 * present, dtype, rank, fixed dims (the batch dim is variable when the graph's maxBatchSize > 0,
 * up to maxBatchSize) and element count. Throws `invalid-input` naming the tensor and the problem.
 * @example checkInputs(graph, { image }) // throws "input 'image' must be UINT8, got FP32"
 */
export function checkInputs(graph: GraphDoc, inputs: Record<string, Tensor>): void {
  const declared = inputSpecs(graph);
  for (const name of Object.keys(inputs)) {
    if (!declared.has(name)) {
      throw new EngineError(
        'invalid-input',
        `unexpected input '${name}': graph '${graph.name}' takes ${[...declared.keys()].map((k) => `'${k}'`).join(', ') || 'no inputs'}`,
      );
    }
  }
  for (const [name, spec] of declared) {
    const t = inputs[name];
    const want = spec.want;
    if (!t) {
      if (spec.optional) continue;
      throw new EngineError('invalid-input', `input '${name}' is missing (${spec.datatype} ${shapeText(want)})`);
    }
    const where = `input '${name}'`;
    if (t.datatype !== spec.datatype)
      throw new EngineError('invalid-input', `${where} must be ${spec.datatype}, got ${t.datatype}`);
    if (t.shape.length !== want.length)
      throw new EngineError(
        'invalid-input',
        `${where} must have rank ${want.length} ${shapeText(want)}, got ${shapeText(t.shape)}`,
      );
    for (let i = 0; i < want.length; i++) {
      const d = want[i]!;
      const got = t.shape[i]!;
      if (!Number.isInteger(got) || got < 0)
        throw new EngineError('invalid-input', `${where} has an invalid dim ${got} in ${shapeText(t.shape)}`);
      if (d >= 0 && got !== d)
        throw new EngineError(
          'invalid-input',
          `${where} must have shape ${shapeText(want)}, got ${shapeText(t.shape)} (dim ${i} must be ${d})`,
        );
    }
    if (graph.maxBatchSize > 0 && (t.shape[0] ?? 0) > graph.maxBatchSize) {
      throw new EngineError(
        'invalid-input',
        `${where} has batch ${t.shape[0]}, more than the graph's max_batch_size ${graph.maxBatchSize}`,
      );
    }
    if (t.data.length !== elementCount(t.shape)) {
      throw new EngineError(
        'invalid-input',
        `${where} has ${t.data.length} elements but shape ${shapeText(t.shape)} needs ${elementCount(t.shape)}`,
      );
    }
  }
}
