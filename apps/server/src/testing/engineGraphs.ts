// Graphs for engine tests and the bench: small ones built in code, and the bundled examples as GraphDoc objects.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  migrate,
  type ConditionStrategy,
  type GraphDoc,
  type GraphEdge,
  type GraphNode,
  type ModelSettings,
} from '@ensemble-studio/core';
import { deepFreeze } from '../../../../packages/core/src/testing/deepFreeze.ts';
import { EXAMPLES_DIR } from '../examples/prepare.ts';
import { SYNTHETIC } from '../onnx/synthetic.ts';

const pos = { x: 0, y: 0 };
let n = 0;

/** Tests hand the engine frozen documents: code that writes to a graph it runs throws. */
const frozen = (graph: GraphDoc): GraphDoc => deepFreeze(graph) as GraphDoc;
const edge = (source: string, sourcePort: string, target: string, targetPort: string): GraphEdge => ({
  id: `e${n++}`,
  source,
  sourcePort,
  target,
  targetPort,
});

/** x → extractor → router → head ×2 → logits_a, logits_b (the fan-out bench). `settings` apply to both heads. */
export function fanoutGraph(settings?: ModelSettings): GraphDoc {
  const { D, C } = SYNTHETIC;
  const nodes: GraphNode[] = [
    { id: 'x', kind: 'input', position: pos, params: { name: 'x', datatype: 'FP32', dims: [D] } },
    { id: 'extractor', kind: 'model', position: pos, params: { model: 'extractor' } },
    { id: 'fanout', kind: 'router', position: pos, params: { mode: 'copy', count: 2 } },
    { id: 'head_a', kind: 'model', position: pos, params: { model: 'head', ...(settings ? { settings } : {}) } },
    { id: 'head_b', kind: 'model', position: pos, params: { model: 'head', ...(settings ? { settings } : {}) } },
    { id: 'logits_a', kind: 'output', position: pos, params: { name: 'logits_a', datatype: 'FP32', dims: [C] } },
    { id: 'logits_b', kind: 'output', position: pos, params: { name: 'logits_b', datatype: 'FP32', dims: [C] } },
  ];
  const edges = [
    edge('x', 'out', 'extractor', 'x'),
    edge('extractor', 'feat', 'fanout', 'in'),
    edge('fanout', 'out_0', 'head_a', 'feat'),
    edge('fanout', 'out_1', 'head_b', 'feat'),
    edge('head_a', 'logits', 'logits_a', 'in'),
    edge('head_b', 'logits', 'logits_b', 'in'),
  ];
  return frozen({ version: 1, name: 'shared_features', maxBatchSize: 64, nodes, edges });
}

/**
 * input → router → `model` ×2 → out_a, out_b: two balanced branches and nothing else (the fan-out
 * bench; the model needs two instances for both to run at once).
 * @example branchesGraph('head', { name: 'feat', dims: [256] }, { name: 'logits', dims: [16] }, 64)
 */
export function branchesGraph(
  model: string,
  input: { name: string; dims: number[] },
  output: { name: string; dims: number[] },
  maxBatchSize: number,
): GraphDoc {
  const nodes: GraphNode[] = [
    { id: 'in', kind: 'input', position: pos, params: { name: input.name, datatype: 'FP32', dims: input.dims } },
    { id: 'fanout', kind: 'router', position: pos, params: { mode: 'copy', count: 2 } },
    { id: 'branch_a', kind: 'model', position: pos, params: { model } },
    { id: 'branch_b', kind: 'model', position: pos, params: { model } },
    { id: 'out_a', kind: 'output', position: pos, params: { name: 'out_a', datatype: 'FP32', dims: output.dims } },
    { id: 'out_b', kind: 'output', position: pos, params: { name: 'out_b', datatype: 'FP32', dims: output.dims } },
  ];
  const edges = [
    edge('in', 'out', 'fanout', 'in'),
    edge('fanout', 'out_0', 'branch_a', input.name),
    edge('fanout', 'out_1', 'branch_b', input.name),
    edge('branch_a', output.name, 'out_a', 'in'),
    edge('branch_b', output.name, 'out_b', 'in'),
  ];
  return frozen({ version: 1, name: `${model}_branches`, maxBatchSize, nodes, edges });
}

/** One model node between an input and an output per port. */
export function singleModelGraph(
  model: string,
  inputs: { name: string; dims: number[] }[],
  outputs: { name: string; dims: number[] }[],
  maxBatchSize: number,
  settings?: ModelSettings,
): GraphDoc {
  const nodes: GraphNode[] = [
    { id: 'm', kind: 'model', position: pos, params: { model, ...(settings ? { settings } : {}) } },
  ];
  const edges: GraphEdge[] = [];
  for (const i of inputs) {
    nodes.push({
      id: `in_${i.name}`,
      kind: 'input',
      position: pos,
      params: { name: i.name, datatype: 'FP32', dims: i.dims },
    });
    edges.push(edge(`in_${i.name}`, 'out', 'm', i.name));
  }
  for (const o of outputs) {
    nodes.push({
      id: `out_${o.name}`,
      kind: 'output',
      position: pos,
      params: { name: o.name, datatype: 'FP32', dims: o.dims },
    });
    edges.push(edge('m', o.name, `out_${o.name}`, 'in'));
  }
  return frozen({ version: 1, name: `${model}_only`, maxBatchSize, nodes, edges });
}

/**
 * in → `models[0]` → `models[1]` → … → out: each model's `output` feeds the next one's `input`.
 * @example modelChainGraph(['a', 'b'], { name: 'X', dims: [1] }, { name: 'Y', dims: [1] })
 */
export function modelChainGraph(
  models: string[],
  input: { name: string; dims: number[] },
  output: { name: string; dims: number[] },
): GraphDoc {
  const nodes: GraphNode[] = [
    { id: 'in', kind: 'input', position: pos, params: { name: input.name, datatype: 'FP32', dims: input.dims } },
    ...models.map((model, k): GraphNode => ({ id: `m${k}`, kind: 'model', position: pos, params: { model } })),
    { id: 'out', kind: 'output', position: pos, params: { name: output.name, datatype: 'FP32', dims: output.dims } },
  ];
  const edges = models.map((_, k) =>
    edge(k === 0 ? 'in' : `m${k - 1}`, k === 0 ? 'out' : output.name, `m${k}`, input.name),
  );
  edges.push(edge(`m${models.length - 1}`, output.name, 'out', 'in'));
  return frozen({ version: 1, name: models.join('_then_'), maxBatchSize: 0, nodes, edges });
}

/**
 * The `ocr` example as saved in `examples/model_repository/ocr/studio.json` (preprocess → det → DB →
 * condition `len(boxes) == 0` → crop → router → rec, cls → CTC, top-k), with its condition nodes set to `strategy`.
 * @example ocrGraph('bls').nodes.find((n) => n.kind === 'condition')!.params.strategy // 'bls'
 */
export function ocrGraph(strategy: ConditionStrategy = 'gate'): GraphDoc {
  const file = join(EXAMPLES_DIR, 'ocr', 'studio.json');
  const migrated = migrate(JSON.parse(readFileSync(file, 'utf8')));
  if (!migrated.ok) throw new Error(`${file}: ${migrated.error}`);
  const graph = migrated.graph;
  const nodes = graph.nodes.map((node): GraphNode =>
    node.kind === 'condition' ? { ...node, params: { ...node.params, strategy } } : node,
  );
  return frozen({ ...graph, nodes });
}

/** The `vad-stream` example: 576-sample chunk → audio framing → Silero VAD (stateful) → speech_prob. */
export function vadGraph(): GraphDoc {
  const nodes: GraphNode[] = [
    { id: 'audio', kind: 'input', position: pos, params: { name: 'audio', datatype: 'FP32', dims: [576] } },
    {
      id: 'frame',
      kind: 'op',
      position: pos,
      params: { op: 'audio_frame', values: { window: 512, context: 64, sample_rate: 16000 } },
    },
    { id: 'vad', kind: 'model', position: pos, params: { model: 'vad' } },
    { id: 'speech', kind: 'output', position: pos, params: { name: 'speech_prob', datatype: 'FP32', dims: [1, 1] } },
  ];
  return frozen({
    version: 1,
    name: 'vad_stream',
    maxBatchSize: 0,
    nodes,
    edges: [
      edge('audio', 'out', 'frame', 'audio'),
      edge('frame', 'frames', 'vad', 'input'),
      edge('vad', 'output', 'speech', 'in'),
    ],
  });
}
