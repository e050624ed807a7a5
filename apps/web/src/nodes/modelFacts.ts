import { schedulingOf, type CatalogueModel, type NodeSettings } from '@ensemble-studio/core';

/** What kind of model a node runs, as the node, the palette and the inspector show it. */
export interface ModelFacts {
  /** `python`, `onnxruntime`, … (the config's backend, else its platform). */
  backend: string;
  /** The file the backend loads, relative to the repository: `add_one/1/model.py`. */
  file: string | null;
  decoupled: boolean;
  /** The sequence batcher's strategy when the model keeps per-stream state. */
  sequence: 'direct' | 'oldest' | null;
}

/** The backend name of a catalogue model: `python` for a `model.py`, `onnxruntime` for `onnxruntime_onnx`. */
export function backendOf(m: CatalogueModel): string {
  if (m.backend) return m.backend;
  if (m.platform === 'onnxruntime_onnx') return 'onnxruntime';
  return m.platform || 'unknown';
}

/** The model file's path in the repository (latest version), or null for an ensemble. */
export function modelFile(m: CatalogueModel): string | null {
  if (m.platform === 'ensemble') return null;
  const file = m.config.default_model_filename ?? (backendOf(m) === 'python' ? 'model.py' : 'model.onnx');
  const version = m.versions.length ? Math.max(...m.versions) : 1;
  return `${m.name}/${version}/${file}`;
}

/**
 * A model's backend, file and streaming nature, with a node's own settings taking precedence over its config.
 * @example modelFacts(catalogue.models.add_one).file // 'add_one/1/model.py'
 */
export function modelFacts(m: CatalogueModel | undefined, settings?: NodeSettings): ModelFacts | null {
  if (!m) return null;
  const { sequenceBatching: seq, decoupled } = schedulingOf(m.config, settings);
  return {
    backend: backendOf(m),
    file: modelFile(m),
    decoupled,
    sequence: seq ? (seq.oldest ? 'oldest' : 'direct') : null,
  };
}
