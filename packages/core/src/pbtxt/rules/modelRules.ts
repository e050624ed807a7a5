/**
 * Single-config rules for identity, platform/backend, max_batch_size, inputs/outputs and
 * instance groups (TRITON.md §0, §1.2–§1.5; core `ValidateModelConfig`, `ValidateIOShape`).
 */
import type { Diagnostic } from '../../validate/diagnostic.ts';
import type { ModelConfig } from '../modelConfig.ts';
import { asList, asRecord, error, formatDims, isEnsemble, warning } from './util.ts';

/** Platforms each known backend accepts (core:src/constants.h). */
export const BACKEND_PLATFORMS: Record<string, readonly string[]> = {
  onnxruntime: ['onnxruntime_onnx'],
  tensorrt: ['tensorrt_plan'],
  pytorch: ['pytorch_libtorch', 'libtorch', 'torch_aoti'],
  tensorflow: ['tensorflow_graphdef', 'tensorflow_savedmodel'],
};
const KNOWN_PLATFORMS = new Set(['ensemble', ...Object.values(BACKEND_PLATFORMS).flat()]);

export function checkName(config: ModelConfig, dirName: string | undefined): Diagnostic[] {
  if (dirName === undefined || !config.name || config.name === dirName) return [];
  return [error('name-mismatch', `model '${config.name}' lives in directory '${dirName}'; Triton requires the two to be equal`,
    `rename the directory to '${config.name}' or set name: "${dirName}"`)];
}

export function checkPlatform(config: ModelConfig, m: string): Diagnostic[] {
  const platform = config.platform ?? '';
  const backend = config.backend ?? '';
  if (platform === 'ensemble') {
    return backend ? [error('ensemble-backend', `ensemble ${m} sets backend '${backend}'; an ensemble must have an empty backend`, 'remove the backend field')] : [];
  }
  if (!platform && !backend) {
    return [warning('backend-missing', `${m} sets neither platform nor backend; Triton has to guess from the model file`, 'set backend (e.g. "python" or "onnxruntime")')];
  }
  const allowed = BACKEND_PLATFORMS[backend];
  if (!backend && !KNOWN_PLATFORMS.has(platform)) {
    return [error('unknown-platform', `${m} has platform '${platform}' and no backend, which Triton does not recognise`, 'set backend to the backend that runs this model')];
  }
  if (allowed && platform && !allowed.includes(platform)) {
    return [error('platform-backend-mismatch', `${m} pairs platform '${platform}' with backend '${backend}'`,
      `set platform to "${allowed[0]}" or remove it`)];
  }
  if (backend === 'python' && platform) {
    return [warning('python-platform', `${m} is a Python model but sets platform '${platform}'`, 'remove the platform field; Python models set only backend: "python"')];
  }
  return [];
}

export function checkMaxBatchSize(config: ModelConfig, m: string): Diagnostic[] {
  const mbs = config.max_batch_size ?? 0;
  return mbs < 0 ? [error('max-batch-size-negative', `${m} has max_batch_size ${mbs}; it must be 0 (no batching) or more`, 'set max_batch_size: 0 or a positive size')] : [];
}

/** Products of the chunks between `-1` dims: `[2,-1,3,4]` → `[2,12]` (core `GetSplitElementCounts`). */
export function splitElementCounts(dims: readonly number[]): number[] {
  const counts = [1];
  for (const d of dims) {
    if (d === -1) counts.push(1);
    else counts[counts.length - 1] = (counts[counts.length - 1] ?? 1) * d;
  }
  return counts;
}

function checkTensor(io: Record<string, unknown>, kind: 'input' | 'output', m: string, mbs: number): Diagnostic[] {
  const name = typeof io.name === 'string' ? io.name : '';
  const label = `${kind} '${name}' of ${m}`;
  if (!name) return [error('io-name-missing', `an ${kind} of ${m} has no name`, `give every ${kind} a name`)];
  const out: Diagnostic[] = [];
  if (!io.data_type || io.data_type === 'TYPE_INVALID') out.push(error('io-dtype-missing', `${label} has no data_type`, 'set data_type, e.g. TYPE_FP32', name));
  const dims = asList<number>(io.dims);
  if (dims.length === 0) {
    out.push(error('io-dims-missing', `${label} has no dims; a scalar is written dims: [ 1 ] with reshape: { shape: [ ] }`, 'set dims, e.g. dims: [ 1 ]', name));
  }
  const bad = dims.filter((d) => d !== -1 && d < 1);
  if (bad.length) out.push(error('io-dim-invalid', `${label} has dims ${formatDims(dims)}; each dim must be -1 or at least 1`, 'use -1 for a variable dim', name));
  const format = io.format;
  if ((format === 'FORMAT_NHWC' || format === 'FORMAT_NCHW') && dims.length !== 3) {
    out.push(error('format-dims', `${label} has format ${format} but ${dims.length} dims; image formats need exactly 3 (without the batch dim)`, 'give 3 dims or remove format', name));
  }
  const reshape = io.reshape === undefined ? undefined : asList<number>(asRecord(io.reshape).shape);
  if (reshape !== undefined && dims.length > 0) out.push(...checkReshape(dims, reshape, label, name, mbs));
  return out;
}

function checkReshape(dims: number[], shape: number[], label: string, port: string, mbs: number): Diagnostic[] {
  if (shape.length === 0 && mbs === 0) {
    return [error('reshape-empty', `${label} has an empty reshape but the model does not batch`, 'remove the reshape or give it a non-empty shape', port)];
  }
  if (shape.some((d) => d !== -1 && d < 1)) {
    return [error('reshape-invalid', `${label} has reshape ${formatDims(shape)}; each dim must be -1 or at least 1`, 'fix the reshape dims', port)];
  }
  const a = splitElementCounts(dims);
  const b = splitElementCounts(shape);
  if (a.length === b.length && a.every((n, i) => n === b[i])) return [];
  return [error('reshape-mismatch', `${label} reshapes ${formatDims(dims)} to ${formatDims(shape)}, which does not keep the element count`,
    'make the reshape hold the same number of elements (and the same -1 positions)', port)];
}

export function checkIO(config: ModelConfig, m: string): Diagnostic[] {
  const out: Diagnostic[] = [];
  const mbs = config.max_batch_size ?? 0;
  for (const kind of ['input', 'output'] as const) {
    const seen = new Set<string>();
    for (const io of asList(config[kind])) {
      out.push(...checkTensor(asRecord(io), kind, m, mbs));
      const name = asRecord(io).name;
      if (typeof name !== 'string' || !name) continue;
      if (seen.has(name)) out.push(error('io-duplicate', `${m} declares ${kind} '${name}' twice`, `rename or remove one of the two '${name}' ${kind}s`, name));
      seen.add(name);
    }
  }
  for (const kind of ['batch_input', 'batch_output'] as const) {
    for (const b of asList(config[kind])) {
      const sources = asList<string>(b.source_input);
      const targets = asList<string>(b.target_name).join(', ') || '(unnamed)';
      if (sources.length !== 1) {
        out.push(error('batch-io-source', `${kind} ${targets} of ${m} has ${sources.length} source_input entries; exactly 1 is needed`, 'give exactly one source_input'));
      }
    }
  }
  return out;
}

export function checkInstanceGroups(config: ModelConfig, m: string): Diagnostic[] {
  const groups = asList(config.instance_group);
  if (isEnsemble(config)) {
    return groups.length ? [error('ensemble-instance-group', `ensemble ${m} has instance_group; ensembles have no instances`, 'remove instance_group (scale the composing models instead)')] : [];
  }
  const out: Diagnostic[] = [];
  groups.forEach((g, i) => {
    const label = `instance group ${typeof g.name === 'string' && g.name ? `'${g.name}'` : i} of ${m}`;
    const gpus = asList<number>(g.gpus);
    if ((g.kind === 'KIND_CPU' || g.kind === 'KIND_MODEL') && gpus.length > 0) {
      out.push(error('instance-group-gpus', `${label} has kind ${g.kind} but lists gpus`, 'remove gpus or use kind: KIND_GPU'));
    }
    if (gpus.some((id) => id < 0)) out.push(error('instance-group-gpu-id', `${label} lists a negative gpu id`, 'use GPU ids 0, 1, …'));
    if (typeof g.count === 'number' && g.count < 0) {
      out.push(warning('instance-group-count', `${label} has count ${g.count}; Triton ignores it and uses the default`, 'set count to 1 or more'));
    }
  });
  return out;
}
