// Graphs built in code for engine tests and the bench (the bundled examples, as GraphDoc objects).
import type { GraphDoc, GraphEdge, GraphNode, ModelSettings } from '@ensemble-studio/core';
import { SYNTHETIC } from '../onnx/synthetic.ts';

const pos = { x: 0, y: 0 };
let n = 0;
const edge = (source: string, sourcePort: string, target: string, targetPort: string): GraphEdge => ({ id: `e${n++}`, source, sourcePort, target, targetPort });

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
    edge('x', 'out', 'extractor', 'x'), edge('extractor', 'feat', 'fanout', 'in'),
    edge('fanout', 'out_0', 'head_a', 'feat'), edge('fanout', 'out_1', 'head_b', 'feat'),
    edge('head_a', 'logits', 'logits_a', 'in'), edge('head_b', 'logits', 'logits_b', 'in'),
  ];
  return { version: 1, name: 'shared_features', maxBatchSize: 64, nodes, edges };
}

/**
 * input → router → `model` ×2 → out_a, out_b: two balanced branches and nothing else (the fan-out
 * bench; the model needs two instances for both to run at once).
 * @example branchesGraph('head', { name: 'feat', dims: [256] }, { name: 'logits', dims: [16] }, 64)
 */
export function branchesGraph(model: string, input: { name: string; dims: number[] }, output: { name: string; dims: number[] }, maxBatchSize: number): GraphDoc {
  const nodes: GraphNode[] = [
    { id: 'in', kind: 'input', position: pos, params: { name: input.name, datatype: 'FP32', dims: input.dims } },
    { id: 'fanout', kind: 'router', position: pos, params: { mode: 'copy', count: 2 } },
    { id: 'branch_a', kind: 'model', position: pos, params: { model } },
    { id: 'branch_b', kind: 'model', position: pos, params: { model } },
    { id: 'out_a', kind: 'output', position: pos, params: { name: 'out_a', datatype: 'FP32', dims: output.dims } },
    { id: 'out_b', kind: 'output', position: pos, params: { name: 'out_b', datatype: 'FP32', dims: output.dims } },
  ];
  const edges = [
    edge('in', 'out', 'fanout', 'in'), edge('fanout', 'out_0', 'branch_a', input.name), edge('fanout', 'out_1', 'branch_b', input.name),
    edge('branch_a', output.name, 'out_a', 'in'), edge('branch_b', output.name, 'out_b', 'in'),
  ];
  return { version: 1, name: `${model}_branches`, maxBatchSize, nodes, edges };
}

/** One model node between an input and an output per port. */
export function singleModelGraph(model: string, inputs: { name: string; dims: number[] }[], outputs: { name: string; dims: number[] }[], maxBatchSize: number, settings?: ModelSettings): GraphDoc {
  const nodes: GraphNode[] = [{ id: 'm', kind: 'model', position: pos, params: { model, ...(settings ? { settings } : {}) } }];
  const edges: GraphEdge[] = [];
  for (const i of inputs) {
    nodes.push({ id: `in_${i.name}`, kind: 'input', position: pos, params: { name: i.name, datatype: 'FP32', dims: i.dims } });
    edges.push(edge(`in_${i.name}`, 'out', 'm', i.name));
  }
  for (const o of outputs) {
    nodes.push({ id: `out_${o.name}`, kind: 'output', position: pos, params: { name: o.name, datatype: 'FP32', dims: o.dims } });
    edges.push(edge('m', o.name, `out_${o.name}`, 'in'));
  }
  return { version: 1, name: `${model}_only`, maxBatchSize, nodes, edges };
}

/** The `ocr` example: preprocess → det → DB → condition (len(boxes) == 0) → crop → router → rec, cls → CTC, top-k. */
export function ocrGraph(strategy: 'gate' | 'bls' | 'error' = 'gate'): GraphDoc {
  const op = (id: string, opId: string, values: Record<string, number | string | boolean>): GraphNode => ({ id, kind: 'op', position: pos, params: { op: opId as 'topk', values } });
  const out = (id: string, datatype: 'FP32' | 'BYTES' | 'INT64', dims: number[]): GraphNode => ({ id, kind: 'output', position: pos, params: { name: id, datatype, dims } });
  const nodes: GraphNode[] = [
    { id: 'image', kind: 'input', position: pos, params: { name: 'image', datatype: 'UINT8', dims: [-1, -1, 3] } },
    op('preprocess', 'image_preprocess', { max_side: 960, multiple: 32, normalize: 'imagenet', channels: 'bgr' }),
    { id: 'det', kind: 'model', position: pos, params: { model: 'det' } },
    op('db', 'db_postprocess', { thresh: 0.3, box_thresh: 0.6, unclip_ratio: 1.5, min_size: 3, max_candidates: 1000 }),
    { id: 'has_text', kind: 'condition', position: pos, params: { expression: 'len(boxes) == 0', strategy, ports: ['boxes', 'image'], message: 'no text found', defaults: {} } },
    op('crop', 'crop_resize', { height: 48, min_width: 320, max_width: 3200, channels: 'bgr' }),
    { id: 'fanout', kind: 'router', position: pos, params: { mode: 'copy', count: 2 } },
    { id: 'rec', kind: 'model', position: pos, params: { model: 'rec' } },
    { id: 'cls', kind: 'model', position: pos, params: { model: 'cls' } },
    op('ctc', 'ctc_decode', { dictionary: 'rec/ppocr_keys_v1.txt', space_char: true }),
    op('angle', 'topk', { k: 1 }),
    out('boxes', 'FP32', [-1, 4, 2]), out('texts', 'BYTES', [-1]), out('scores', 'FP32', [-1]), out('angles', 'INT64', [-1, 1]),
  ];
  const edges = [
    edge('image', 'out', 'preprocess', 'image'), edge('preprocess', 'tensor', 'det', 'x'), edge('det', 'sigmoid_0.tmp_0', 'db', 'prob'),
    edge('preprocess', 'shape_info', 'db', 'shape_info'), edge('db', 'boxes', 'has_text', 'boxes'), edge('image', 'out', 'has_text', 'image'),
    edge('has_text', 'image', 'crop', 'image'), edge('has_text', 'boxes', 'crop', 'boxes'), edge('has_text', 'boxes', 'boxes', 'in'),
    edge('crop', 'crops', 'fanout', 'in'), edge('fanout', 'out_0', 'rec', 'x'), edge('fanout', 'out_1', 'cls', 'x'),
    edge('rec', 'softmax_11.tmp_0', 'ctc', 'probs'), edge('ctc', 'texts', 'texts', 'in'), edge('ctc', 'scores', 'scores', 'in'),
    edge('cls', 'softmax_0.tmp_0', 'angle', 'scores'), edge('angle', 'indices', 'angles', 'in'),
  ];
  return { version: 1, name: 'ocr', maxBatchSize: 0, nodes, edges };
}

/** The `vad-stream` example: 576-sample chunk → audio framing → Silero VAD (stateful) → speech_prob. */
export function vadGraph(): GraphDoc {
  const nodes: GraphNode[] = [
    { id: 'audio', kind: 'input', position: pos, params: { name: 'audio', datatype: 'FP32', dims: [576] } },
    { id: 'frame', kind: 'op', position: pos, params: { op: 'audio_frame', values: { window: 512, context: 64, sample_rate: 16000 } } },
    { id: 'vad', kind: 'model', position: pos, params: { model: 'vad' } },
    { id: 'speech', kind: 'output', position: pos, params: { name: 'speech_prob', datatype: 'FP32', dims: [1, 1] } },
  ];
  return { version: 1, name: 'vad_stream', maxBatchSize: 0, nodes, edges: [edge('audio', 'out', 'frame', 'audio'), edge('frame', 'frames', 'vad', 'input'), edge('vad', 'output', 'speech', 'in')] };
}
