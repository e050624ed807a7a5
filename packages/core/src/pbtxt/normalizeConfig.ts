/**
 * Triton's auto-complete and normalisation of a parsed config, as its core's `AutoCompleteBackendFields`,
 * `NormalizeModelConfig` and `NormalizeInstanceGroup` do at load time.
 */
import type { InstanceGroup, ModelConfig } from './modelConfig.ts';
import { asRecord, isEnsemble } from './rules/util.ts';

export interface NormalizeOptions {
  /** The model's directory name (used when `name` is omitted). */
  dirName: string;
  /** Files of the model, as `1/model.onnx` or names inside the first version dir (`model.onnx`). */
  files?: string[];
  /** GPUs available; 0 or omitted means CPU only. */
  gpus?: number;
}

/** Deep copy of plain JSON data that keeps NaN/Infinity and odd keys such as `__proto__` as data. */
export function clone<T>(v: T): T {
  if (Array.isArray(v)) return v.map(clone) as T;
  if (typeof v !== 'object' || v === null) return v;
  const out: Record<string, unknown> = {};
  for (const [k, x] of Object.entries(v))
    Object.defineProperty(out, k, { value: clone(x), writable: true, enumerable: true, configurable: true });
  return out as T;
}

/** The first version directory's file names, e.g. ['model.onnx'] from ['1/model.onnx', '2/model.onnx']. */
function versionFiles(files: readonly string[]): string[] {
  const versions = files
    .map((f) => /^(\d+)\//.exec(f)?.[1])
    .filter((v): v is string => v !== undefined && !v.startsWith('0'));
  const first = versions.length ? String(Math.min(...versions.map(Number))) : undefined;
  return files.flatMap((f) => {
    const m = /^(\d+)\/([^/]+)/.exec(f);
    if (!m) return f.includes('/') ? [] : [f];
    return m[1] === first ? [m[2]!] : [];
  });
}

/** The backend fields Triton's auto-complete settles on (core `AutoCompleteBackendFields`). */
export interface BackendFields {
  platform: string;
  backend: string;
  default_model_filename: string;
}

const TF_FILES: Record<string, string> = {
  'model.savedmodel': 'tensorflow_savedmodel',
  'model.graphdef': 'tensorflow_graphdef',
};

/**
 * Fills `platform`, `backend` and `default_model_filename` the way Triton does before validating:
 * from each other, from the model file in the version directory, or (when nothing at all is
 * given) from a directory name of the form `name.<backend>`. Fields it cannot settle stay ''.
 * @example autoCompleteBackend({}, 'det', ['model.onnx']) // { platform: 'onnxruntime_onnx', backend: 'onnxruntime', default_model_filename: 'model.onnx' }
 */
export function autoCompleteBackend(config: ModelConfig, dirName: string, files: readonly string[]): BackendFields {
  let platform = config.platform ?? '';
  let backend = config.backend ?? '';
  let file = config.default_model_filename ?? '';
  const present = new Set(versionFiles(files));
  const done = (): BackendFields => ({ platform, backend, default_model_filename: file });
  const fromDir = !file && files.length > 0;
  if (!platform && (!backend || backend === 'tensorflow')) {
    platform =
      TF_FILES[file] ??
      (fromDir
        ? (Object.keys(TF_FILES)
            .filter((f) => present.has(f))
            .map((f) => TF_FILES[f]!)
            .pop() ?? '')
        : '');
  }
  if (platform === 'tensorflow_savedmodel' || platform === 'tensorflow_graphdef') {
    backend ||= 'tensorflow';
    file ||= platform === 'tensorflow_savedmodel' ? 'model.savedmodel' : 'model.graphdef';
    return done();
  }
  const byFile = (name: string): boolean => file === name || (!platform && fromDir && present.has(name));
  if (!backend && (platform === 'tensorrt_plan' || byFile('model.plan'))) backend = 'tensorrt';
  if (backend === 'tensorrt') return ((platform ||= 'tensorrt_plan'), (file ||= 'model.plan'), done());
  if (!backend && (platform === 'onnxruntime_onnx' || byFile('model.onnx'))) backend = 'onnxruntime';
  if (backend === 'onnxruntime') return ((platform ||= 'onnxruntime_onnx'), (file ||= 'model.onnx'), done());
  if (!backend && byFile('model.xml')) backend = 'openvino';
  if (backend === 'openvino') return ((file ||= 'model.xml'), done());
  if (!backend) {
    if (platform === 'pytorch_libtorch' || platform === 'libtorch' || file === 'model.pt') backend = 'pytorch';
    else if (platform === 'torch_aoti' || file === 'model.pt2') backend = 'pytorch';
    else if (!platform && fromDir && present.has('model.pt')) [backend, platform] = ['pytorch', 'pytorch_libtorch'];
    else if (!platform && fromDir && present.has('model.pt2')) [backend, platform] = ['pytorch', 'torch_aoti'];
  }
  if (backend === 'pytorch') {
    if (!platform) [platform, file] = ['pytorch_libtorch', file || 'model.pt'];
    else if (platform === 'torch_aoti') file ||= 'model.pt2';
    return done();
  }
  if (!backend && byFile('model.py')) backend = 'python';
  if (backend === 'python') return ((file ||= 'model.py'), done());
  if (!backend && !platform && !file) {
    const dot = dirName.indexOf('.');
    if (dot >= 0) [backend, file] = [dirName.slice(dot + 1), `model.${dirName.slice(dot + 1)}`];
  }
  return done();
}

function completeBackend(config: ModelConfig, dirName: string, files: readonly string[]): void {
  if (isEnsemble(config)) return;
  const { platform, backend } = autoCompleteBackend(config, dirName, files);
  if (platform) config.platform = platform;
  if (backend) config.backend = backend;
}

function defaultCount(kind: string, backend: string | undefined): number {
  return kind === 'KIND_CPU' && (backend === 'onnxruntime' || backend === 'tensorflow') ? 2 : 1;
}

function normalizeGroups(config: ModelConfig, gpus: number): void {
  if (isEnsemble(config)) return;
  // The group Triton adds when none is given is named after the model.
  const groups: InstanceGroup[] = config.instance_group?.length ? config.instance_group : [{ name: config.name }];
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
 * platform/backend pair (or both, from the model file), a default instance group named after the model (count 2 for
 * KIND_CPU on onnxruntime/tensorflow, else 1; KIND_AUTO → KIND_GPU when GPUs exist, else KIND_CPU),
 * and `preferred_batch_size: [max_batch_size]` for dynamic batching and the oldest strategy.
 * Returns a new config; the argument is not changed.
 * @example normalizeConfig({ backend: 'onnxruntime' }, { dirName: 'det' }).instance_group // [{ name: 'det', kind: 'KIND_CPU', count: 2 }]
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
