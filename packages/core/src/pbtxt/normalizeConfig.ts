/**
 * Triton's auto-complete and normalisation of a parsed config (TRITON.md §0, §1.2, §1.5–§1.7;
 * core `AutoCompleteBackendFields`, `NormalizeModelConfig`, `NormalizeInstanceGroup`).
 */
import type { InstanceGroup, ModelConfig } from './modelConfig.ts';
import { asRecord, isEnsemble } from './rules/util.ts';
import { ownValue } from '../catalogue/types.ts';

export interface NormalizeOptions {
  /** The model's directory name (used when `name` is omitted). */
  dirName: string;
  /** Files of the model, as `1/model.onnx` or names inside the first version dir (`model.onnx`). */
  files?: string[];
  /** GPUs available; 0 or omitted means CPU only. */
  gpus?: number;
}

/** Default model file → [platform, backend] (core:src/constants.h). */
const FILE_KINDS: Record<string, [string, string]> = {
  'model.onnx': ['onnxruntime_onnx', 'onnxruntime'],
  'model.py': ['', 'python'],
  'model.plan': ['tensorrt_plan', 'tensorrt'],
  'model.pt': ['pytorch_libtorch', 'pytorch'],
  'model.pt2': ['torch_aoti', 'pytorch'],
  'model.savedmodel': ['tensorflow_savedmodel', 'tensorflow'],
  'model.graphdef': ['tensorflow_graphdef', 'tensorflow'],
  'model.xml': ['', 'openvino'],
};

const PLATFORM_BACKEND: Record<string, string> = {
  onnxruntime_onnx: 'onnxruntime',
  tensorrt_plan: 'tensorrt',
  pytorch_libtorch: 'pytorch',
  libtorch: 'pytorch',
  torch_aoti: 'pytorch',
  tensorflow_graphdef: 'tensorflow',
  tensorflow_savedmodel: 'tensorflow',
};

/** Deep copy of plain JSON data that keeps NaN/Infinity and odd keys such as `__proto__`. */
function clone<T>(v: T): T {
  if (Array.isArray(v)) return v.map(clone) as T;
  if (typeof v !== 'object' || v === null) return v;
  const out: Record<string, unknown> = {};
  for (const [k, x] of Object.entries(v)) Object.defineProperty(out, k, { value: clone(x), writable: true, enumerable: true, configurable: true });
  return out as T;
}

/** The first version directory's file names, e.g. ['model.onnx'] from ['1/model.onnx', '2/model.onnx']. */
function versionFiles(files: readonly string[]): string[] {
  const versions = files.map((f) => /^(\d+)\//.exec(f)?.[1]).filter((v): v is string => v !== undefined && !v.startsWith('0'));
  const first = versions.length ? String(Math.min(...versions.map(Number))) : undefined;
  return files.flatMap((f) => {
    const m = /^(\d+)\/([^/]+)/.exec(f);
    if (!m) return f.includes('/') ? [] : [f];
    return m[1] === first ? [m[2]!] : [];
  });
}

function completeBackend(config: ModelConfig, dirName: string, files: readonly string[]): void {
  if (isEnsemble(config)) return;
  if (config.platform && !config.backend) {
    const b = ownValue(PLATFORM_BACKEND, config.platform);
    if (b) config.backend = b;
  } else if (config.backend && !config.platform) {
    const wanted = Object.values(FILE_KINDS).filter(([p, b]) => b === config.backend && p);
    const fromFile = versionFiles(files).map((f) => ownValue(FILE_KINDS, f)).find((k) => k && k[1] === config.backend);
    const platform = fromFile?.[0] || (config.backend === 'tensorflow' ? undefined : wanted[0]?.[0]);
    if (platform) config.platform = platform;
  } else if (!config.platform && !config.backend) {
    const kind = versionFiles(files).map((f) => ownValue(FILE_KINDS, f)).find((k) => k !== undefined);
    const suffix = /\.([A-Za-z0-9_]+)$/.exec(dirName)?.[1];
    if (kind) {
      if (kind[0]) config.platform = kind[0];
      config.backend = kind[1];
    } else if (suffix) config.backend = suffix;
  }
}

function defaultCount(kind: string, backend: string | undefined): number {
  return kind === 'KIND_CPU' && (backend === 'onnxruntime' || backend === 'tensorflow') ? 2 : 1;
}

function normalizeGroups(config: ModelConfig, gpus: number): void {
  if (isEnsemble(config)) return;
  const groups: InstanceGroup[] = config.instance_group?.length ? config.instance_group : [{}];
  config.instance_group = groups.map((g) => {
    const kind = !g.kind || g.kind === 'KIND_AUTO' ? (gpus > 0 ? 'KIND_GPU' : 'KIND_CPU') : g.kind;
    const count = typeof g.count === 'number' && g.count >= 1 ? g.count : defaultCount(kind, config.backend);
    return { ...g, kind, count };
  });
}

function fillPreferred(batching: unknown, mbs: number): void {
  const b = asRecord(batching);
  if (batching === undefined || mbs <= 0) return;
  const sizes = b.preferred_batch_size;
  if (!Array.isArray(sizes) || sizes.length === 0) b.preferred_batch_size = [mbs];
}

/**
 * What Triton fills in before validating: `name` from the directory, the missing half of the
 * platform/backend pair (or both, from the model file), a default instance group (count 2 for
 * KIND_CPU on onnxruntime/tensorflow, else 1; KIND_AUTO → KIND_GPU when GPUs exist, else KIND_CPU),
 * and `preferred_batch_size: [max_batch_size]` for dynamic batching and the oldest strategy.
 * Returns a new config; the argument is not changed.
 * @example normalizeConfig({ backend: 'onnxruntime' }, { dirName: 'det' }).instance_group // [{ kind: 'KIND_CPU', count: 2 }]
 */
export function normalizeConfig(config: ModelConfig, opts: NormalizeOptions): ModelConfig {
  const out = clone(config);
  if (!out.name) out.name = opts.dirName;
  completeBackend(out, opts.dirName, opts.files ?? []);
  normalizeGroups(out, opts.gpus ?? 0);
  const mbs = out.max_batch_size ?? 0;
  fillPreferred(out.dynamic_batching, mbs);
  if (out.sequence_batching !== undefined) fillPreferred(asRecord(out.sequence_batching).oldest, mbs);
  return out;
}
