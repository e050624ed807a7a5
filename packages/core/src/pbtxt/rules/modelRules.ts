/**
 * Single-config rules for identity, platform/backend, runtime, max_batch_size, versions, model
 * metrics and warm-up (core `ValidateModelConfig`, `AutoCompleteBackendFields`,
 * `ValidateModelMetrics`, the backend library lookup and the version policy of the model lifecycle).
 * Messages carry Triton's own wording so a search for Triton's error finds the studio's.
 */
import type { Diagnostic } from '../../validate/diagnostic.ts';
import type { ModelConfig } from '../modelConfig.ts';
import { autoCompleteBackend } from '../normalizeConfig.ts';
import { asList, asRecord, error, formatDims, warning } from './util.ts';

/** Platforms each backend with a fixed platform accepts (core `GetBackendType`/`GetBackendTypeFromPlatform`). */
const BACKEND_PLATFORMS: Record<string, readonly string[]> = {
  onnxruntime: ['onnxruntime_onnx'],
  tensorrt: ['tensorrt_plan'],
  pytorch: ['pytorch_libtorch'],
  tensorflow: ['tensorflow_graphdef', 'tensorflow_savedmodel'],
};

/** The config's name must equal its directory's (core `ModelRepositoryManager`). */
export function checkName(config: ModelConfig, dirName: string | undefined): Diagnostic[] {
  if (dirName === undefined || !config.name || config.name === dirName) return [];
  return [
    error(
      'name-mismatch',
      `unexpected directory name '${dirName}' for model '${config.name}', directory name must equal model name`,
      `rename the directory to '${config.name}' or set name: "${dirName}"`,
    ),
  ];
}

/**
 * Platform/backend rules on the auto-completed config: a backend must be known (from `backend`,
 * `platform`, `default_model_filename`, the version directory's model file or a `name.<backend>`
 * directory name), and a backend with a fixed platform must be paired with it.
 */
export function checkPlatform(config: ModelConfig, m: string, dirName?: string): Diagnostic[] {
  const name = config.name || dirName || m;
  // Triton validates after auto-complete; a config read straight from text gets the same completion here.
  const completed =
    config.platform === 'ensemble'
      ? {
          platform: 'ensemble',
          backend: config.backend ?? '',
          default_model_filename: config.default_model_filename ?? '',
        }
      : autoCompleteBackend(config, name, []);
  const { platform, backend } = completed;
  if (platform === 'ensemble') {
    return backend
      ? [
          error(
            'ensemble-backend',
            `Ensemble model '${name}' must have platform type 'ensemble' and empty backend type`,
            'remove the backend field',
          ),
        ]
      : [];
  }
  if (!backend) {
    if (!platform && !completed.default_model_filename) {
      return [
        error(
          'backend-missing',
          `Invalid model name: Could not determine backend for model '${name}' with no backend in model configuration. Expected model name of the form 'model.<backend_name>'.`,
          'set backend (e.g. "python" or "onnxruntime"), or put the model file (model.onnx, model.py …) in a version directory',
        ),
      ];
    }
    return [
      error(
        'unknown-platform',
        `unexpected platform type '${platform}' for ${name}`,
        'set backend to the backend that runs this model',
      ),
    ];
  }
  const allowed = BACKEND_PLATFORMS[backend];
  if (allowed && platform && !allowed.includes(platform)) {
    return [
      error(
        'platform-backend-mismatch',
        `unexpected 'platform' and 'backend' pair, got:${platform}, ${backend}`,
        `set platform to "${allowed[0]}" or remove it`,
      ),
    ];
  }
  if (backend === 'python' && platform) {
    return [
      warning(
        'python-platform',
        `${m} is a Python model but sets platform '${platform}'`,
        'remove the platform field; Python models set only backend: "python"',
      ),
    ];
  }
  return [];
}

/** A `runtime` that leaves the backend directory (`..` above it, or an absolute path). */
export function checkRuntime(config: ModelConfig, m: string): Diagnostic[] {
  const runtime = typeof config.runtime === 'string' ? config.runtime : '';
  if (!runtime) return [];
  let depth = 0;
  let escapes = runtime.startsWith('/');
  for (const part of runtime.split('/')) {
    if (part === '..') depth -= 1;
    else if (part && part !== '.') depth += 1;
    if (depth < 0) escapes = true;
  }
  if (!escapes) return [];
  return [
    error(
      'runtime-escape',
      `backend library name '${runtime}' escapes backend directory, for model ${m}, check model config runtime field`,
      'set runtime to a library file name inside the backend directory (e.g. "libtriton_onnxruntime.so") or remove it',
    ),
  ];
}

/** `max_batch_size` must be 0 (no batching) or more. */
export function checkMaxBatchSize(config: ModelConfig, m: string): Diagnostic[] {
  const mbs = config.max_batch_size ?? 0;
  return mbs < 0
    ? [
        error(
          'max-batch-size-negative',
          `'max_batch_size' must be non-negative value for ${config.name ?? m}`,
          'set max_batch_size: 0 or a positive size',
        ),
      ]
    : [];
}

/**
 * The versions Triton serves: of the numeric version directories present, the newest N (`latest`,
 * default 1), all (`all`), or the listed ones that exist (`specific`).
 * @example servedVersions({ version_policy: { latest: { num_versions: 2 } } }, [1, 2, 3]) // [2, 3]
 */
export function servedVersions(config: ModelConfig, present: readonly number[]): number[] {
  const sorted = [...new Set(present)].sort((a, b) => a - b);
  const policy = asRecord(config.version_policy);
  if (policy.specific !== undefined) {
    const wanted = new Set(asList<number>(asRecord(policy.specific).versions).map(Number));
    return sorted.filter((v) => wanted.has(v));
  }
  if (policy.all !== undefined) return sorted;
  const latest = asRecord(policy.latest);
  const n = typeof latest.num_versions === 'number' ? latest.num_versions : 1;
  return n <= 0 ? [] : sorted.slice(-n);
}

/**
 * With the version directories known: a model must have a version to serve under its policy, and
 * each `specific` version should have its directory (Triton logs the missing ones and loads the rest).
 */
export function checkVersions(config: ModelConfig, m: string, present: readonly number[] | undefined): Diagnostic[] {
  if (present === undefined) return [];
  const out: Diagnostic[] = [];
  const specific = asRecord(asRecord(config.version_policy).specific);
  for (const v of asList<number>(specific.versions)) {
    if (!present.includes(Number(v))) {
      out.push(
        warning(
          'version-dir-missing',
          `version ${v} is specified for model ${m}, but the version directory is not present`,
          `add the directory ${v}/ or remove ${v} from version_policy`,
        ),
      );
    }
  }
  if (servedVersions(config, present).length === 0) {
    const dirs = present.length
      ? `its version directories (${present.join(', ')}) are not selected by its version_policy`
      : 'it has no numeric version directory (e.g. 1/)';
    out.push(
      error(
        'no-version-to-serve',
        `at least one version must be available under the version policy of model ${m}: ${dirs}`,
        present.length
          ? 'change version_policy to select an existing version'
          : 'add a version directory such as 1/ holding the model file',
      ),
    );
  }
  return out;
}

/** `model_metrics` (core `ValidateModelMetrics`): every metric control names a family and histogram buckets. */
export function checkModelMetrics(config: ModelConfig, m: string): Diagnostic[] {
  if (config.model_metrics === undefined) return [];
  const out: Diagnostic[] = [];
  asList(asRecord(config.model_metrics).metric_control).forEach((c, i) => {
    const where = `metric_control ${i} of ${m}`;
    if (c.metric_identifier === undefined) {
      out.push(
        error(
          'metric-identifier-missing',
          `metric control must specify 'metric_identifier' (${where})`,
          'add metric_identifier { family: "nv_inference_request_duration" }',
        ),
      );
    } else if (!asRecord(c.metric_identifier).family) {
      out.push(
        error(
          'metric-family-missing',
          `metric identifier must specify non-empty 'family' (${where})`,
          'set family to the metric family to customise',
        ),
      );
    } else if (c.histogram_options === undefined) {
      out.push(
        error(
          'metric-histogram-missing',
          `metric control must specify 'histogram_options' (${where})`,
          'add histogram_options { buckets: [ … ] }',
        ),
      );
    } else if (asList(asRecord(c.histogram_options).buckets).length === 0) {
      out.push(
        error(
          'metric-buckets-missing',
          `histogram options must specify non-empty 'buckets' (${where})`,
          'list the bucket boundaries, e.g. buckets: [ 100, 500, 1000 ]',
        ),
      );
    }
  });
  return out;
}

/** Warm-up samples Triton cannot build: a variable dim in a sample it runs (batch_size > 0). */
export function checkWarmup(config: ModelConfig, m: string): Diagnostic[] {
  const out: Diagnostic[] = [];
  for (const w of asList(config.model_warmup)) {
    if (w.batch_size === 0 || w.batch_size === undefined) continue;
    for (const [input, spec] of Object.entries(asRecord(w.inputs))) {
      const dims = asList<number>(asRecord(spec).dims);
      if (dims.some((d) => d < 0)) {
        out.push(
          error(
            'warmup-variable-dims',
            `warmup setting expects all variable-size dimensions are specified for input '${input}' (sample '${String(w.name ?? '')}' of ${m} has dims ${formatDims(dims)})`,
            'give fixed sizes in the warm-up sample dims',
            input,
          ),
        );
      }
    }
  }
  return out;
}
