// How `run --sequence` turns a WAV file into the chunks of one sequence.
import type { GraphDoc, InputNode, Tensor } from '@ensemble-studio/core';
import { fullShape } from '@ensemble-studio/core';
import { num, resolveValues } from '../engine/ops/check.ts';

/** Samples per chunk, the rate they must be at (when the graph says), and the samples each repeats from the chunk before. */
export interface Framing {
  window: number;
  context: number;
  rate?: number;
  by?: string;
}

/** Silero-style streaming: 512 new samples per request with the previous 64 prepended. */
const SILERO: Framing = { window: 512, context: 64 };

/**
 * The framing of the `audio_frame` op the streamed input feeds (its window, context and sample rate),
 * or Silero's 512 + 64 at the file's own rate when the input feeds no such op.
 * @example streamFraming(vadStreamGraph, audioInput) // { window: 512, context: 64, rate: 16000, by: 'frame' }
 */
export function streamFraming(graph: GraphDoc, input: InputNode): Framing {
  const targets = new Set(graph.edges.filter((e) => e.source === input.id).map((e) => e.target));
  const op = graph.nodes.find((n) => targets.has(n.id) && n.kind === 'op' && n.params.op === 'audio_frame');
  if (op?.kind !== 'op') return SILERO;
  const v = resolveValues('audio_frame', op.params.values);
  return { window: num(v, 'window'), context: num(v, 'context'), rate: num(v, 'sample_rate'), by: op.id };
}

/** Windows of context + window samples over a signal (zero-padded), shaped like the graph input. */
export function sequenceChunks(
  samples: Float32Array,
  node: InputNode,
  maxBatchSize: number,
  framing: Framing = SILERO,
): Tensor[] {
  const { window, context } = framing;
  const shape = fullShape(node.params.dims, maxBatchSize).map((d) => (d < 0 ? 1 : d));
  shape[shape.length - 1] = context + window;
  const chunks: Tensor[] = [];
  for (let start = 0; start < Math.max(samples.length, 1); start += window) {
    const data = new Float32Array(context + window);
    const from = Math.max(0, start - context);
    data.set(samples.subarray(from, Math.min(samples.length, start + window)), context - (start - from));
    chunks.push({ datatype: 'FP32', shape: [...shape], data });
  }
  return chunks;
}
