// How a model config maps onto workers: instance count, execution providers, warm-up feeds.
import type { ModelConfig, Tensor } from '@ensemble-studio/core';
import { elementCount, fromConfigType, zeros } from '@ensemble-studio/core';
import { controlTensors, initialStates } from './sequenceTensors.ts';

/** Instances of a model: the sum of its instance_group counts; Triton's default is 2 for KIND_CPU onnxruntime, else 1. */
export function instanceCount(config: ModelConfig): number {
  const groups = config.instance_group ?? [];
  if (groups.length === 0) return 2;
  return groups.reduce((n, g) => n + (g.count ?? (g.kind === 'KIND_GPU' ? 1 : 2)), 0);
}

/** Whether the model asks for GPU instances. */
function wantsGpu(config: ModelConfig): boolean {
  return (config.instance_group ?? []).some((g) => g.kind === 'KIND_GPU');
}

/** Execution providers to try in order: KIND_GPU asks for CUDA, then WebGPU, then CPU. */
export function providersFor(config: ModelConfig, gpu: 'auto' | 'off'): string[] {
  return wantsGpu(config) && gpu === 'auto' ? ['cuda', 'webgpu', 'cpu'] : ['cpu'];
}

// Variable dims for the zero warm-up: 64, and 512 for the last dim (audio models need a real window).
const VARIABLE_DIM = 64;
const VARIABLE_LAST_DIM = 512;

/**
 * Warm-up requests for a model: its `model_warmup` entries when present (zero or random data), else
 * one request of zeros with every `-1` dim set to a small size (1 for the batch dim). Sequence models
 * also get their initial state and control inputs.
 */
export function warmupFeeds(config: ModelConfig, readFile: (name: string) => Uint8Array): Record<string, Tensor>[] {
  const mbs = config.max_batch_size ?? 0;
  const extra = (): Record<string, Tensor> =>
    config.sequence_batching
      ? { ...safeStates(config, readFile), ...controlTensors(config, [{ id: 1, start: true, end: true }]) }
      : {};
  if (config.model_warmup && config.model_warmup.length > 0) {
    return config.model_warmup.map((w) => {
      const feeds: Record<string, Tensor> = extra();
      for (const [name, spec] of Object.entries(w.inputs ?? {})) {
        const shape = mbs > 0 ? [Math.max(1, w.batch_size ?? 1), ...spec.dims] : [...spec.dims];
        const t = zeros(fromConfigType(spec.data_type) ?? 'FP32', shape);
        if (spec.random_data && t.data instanceof Float32Array)
          for (let i = 0; i < t.data.length; i++) t.data[i] = Math.random();
        feeds[name] = t;
      }
      return feeds;
    });
  }
  const feeds: Record<string, Tensor> = extra();
  for (const input of config.input ?? []) {
    const dims = input.dims.map((d, i) =>
      d >= 0 ? d : i === input.dims.length - 1 ? VARIABLE_LAST_DIM : VARIABLE_DIM,
    );
    const shape = mbs > 0 ? [1, ...dims] : dims.map((d, i) => (i === 0 && input.dims[0] === -1 ? 1 : d));
    if (elementCount(shape) > 16_000_000) return [];
    feeds[input.name] = zeros(fromConfigType(input.data_type) ?? 'FP32', shape);
  }
  return [feeds];
}

function safeStates(config: ModelConfig, readFile: (name: string) => Uint8Array): Record<string, Tensor> {
  try {
    return initialStates(config, readFile);
  } catch {
    return {};
  }
}

/**
 * Nice value of a model's worker threads. When models keep every core busy, workers at the main
 * thread's priority take CPU slices from it and the event loop (scheduling, streaming) stalls, so they
 * run at +5. Streaming (sequence-batched) models keep the default: at +5 their chunks' latency suffers
 * more than the event loop gains (both measured: bench/README.md).
 * @example workerNice({ sequence_batching: { direct: {} } }) === 0
 */
export function workerNice(config: ModelConfig): number {
  return config.sequence_batching ? 0 : 5;
}
