/**
 * Input/output rules of one config (core `ValidateModelIOConfig`: `ValidateIOShape`,
 * `ValidateModelInput`/`Output`, `ValidateNonLinearFormatIO`, `ValidateBatchIO`), in Triton's wording.
 */
import type { Diagnostic } from '../../validate/diagnostic.ts';
import type { ModelConfig } from '../modelConfig.ts';
import { ENUMS } from '../protoEnums.ts';
import { asList, asRecord, error, formatDims, warning } from './util.ts';

/** Products of the chunks between `-1` dims: `[2,-1,3,4]` → `[2,12]` (core `GetSplitElementCounts`). */
function splitElementCounts(dims: readonly number[]): number[] {
  const counts = [1];
  for (const d of dims) {
    if (d === -1) counts.push(1);
    else counts[counts.length - 1] = (counts[counts.length - 1] ?? 1) * d;
  }
  return counts;
}

/** Backends that complete a tensor's missing data_type/dims from the model file at load. */
const AUTO_COMPLETING = new Set(['python', 'onnxruntime', 'tensorrt', 'openvino', 'tensorflow']);

interface IOContext {
  m: string;
  name: string;
  mbs: number;
  platform: string;
  autoCompletes: boolean;
}

function checkReshape(dims: number[], shape: number[], prefix: string, port: string, c: IOContext): Diagnostic[] {
  const suffix = ` for ${c.name}`;
  if (shape.some((d) => d !== -1 && d < 1)) {
    return [
      error(
        'reshape-invalid',
        `${prefix}reshape dimensions must be integer >= 1, or -1 to indicate a variable-size dimension${suffix}`,
        'fix the reshape dims',
        port,
      ),
    ];
  }
  const size = (ds: number[]): number => (ds.length === 0 ? 0 : ds.includes(-1) ? -1 : ds.reduce((x, y) => x * y, 1));
  const [ds, rs] = [size(dims), size(shape)];
  const differ = (): Diagnostic =>
    error(
      'reshape-mismatch',
      `${prefix}has different size for dims and reshape${suffix} (${formatDims(dims)} vs ${formatDims(shape)})`,
      'make the reshape hold the same number of elements (and the same -1 positions)',
      port,
    );
  if (ds !== rs && (rs !== 0 || ds !== 1)) return [differ()];
  if (ds !== -1) return [];
  const a = splitElementCounts(dims);
  const b = splitElementCounts(shape);
  if (a.length !== b.length) {
    return [
      error(
        'reshape-mismatch',
        `${prefix}has different number of variable-size dimensions for dims and reshape${suffix} (${formatDims(dims)} vs ${formatDims(shape)})`,
        'use the same number of -1 dims in dims and reshape',
        port,
      ),
    ];
  }
  return a.every((n, i) => n === b[i]) ? [] : [differ()];
}

function checkTensor(io: Record<string, unknown>, kind: 'input' | 'output', c: IOContext): Diagnostic[] {
  const name = typeof io.name === 'string' ? io.name : '';
  const suffix = ` for ${c.name}`;
  if (!name)
    return [error('io-name-missing', `model ${kind} must specify 'name'${suffix}`, `give every ${kind} a name`)];
  const prefix = `model ${kind} '${name}' `;
  const incomplete = (code: string, what: string, fix: string): Diagnostic =>
    c.autoCompletes
      ? warning(
          code,
          `${prefix}does not specify '${what}'${suffix}; the backend's auto-complete must fill it from the model file at load`,
          fix,
          name,
        )
      : error(code, `${prefix}must specify '${what}'${suffix}`, fix, name);
  const out: Diagnostic[] = [];
  if (!io.data_type || io.data_type === 'TYPE_INVALID')
    out.push(incomplete('io-dtype-missing', 'data_type', 'set data_type, e.g. TYPE_FP32'));
  const dims = asList<number>(io.dims);
  if (dims.length === 0)
    out.push(
      incomplete(
        'io-dims-missing',
        'dims',
        'set dims, e.g. dims: [ 1 ] (a scalar is dims: [ 1 ] with reshape: { shape: [ ] })',
      ),
    );
  const reshape = io.reshape === undefined ? undefined : asList<number>(asRecord(io.reshape).shape);
  if (reshape !== undefined && reshape.length === 0 && c.mbs === 0) {
    out.push(
      error(
        'reshape-empty',
        `${prefix}cannot have empty reshape for non-batching model as scalar tensors are not supported${suffix}`,
        'remove the reshape or give it a non-empty shape',
        name,
      ),
    );
  }
  if (dims.some((d) => d !== -1 && d < 1)) {
    out.push(
      error(
        'io-dim-invalid',
        `${prefix}dimension must be integer >= 1, or -1 to indicate a variable-size dimension${suffix} (dims ${formatDims(dims)})`,
        'use -1 for a variable dim',
        name,
      ),
    );
  }
  if (reshape !== undefined && dims.length > 0) out.push(...checkReshape(dims, reshape, prefix, name, c));
  if (kind === 'input' && (io.format === 'FORMAT_NHWC' || io.format === 'FORMAT_NCHW') && dims.length !== 3) {
    out.push(
      error(
        'format-dims',
        `model input NHWC/NCHW require 3 dims${suffix} ('${name}' has format ${io.format} and ${dims.length} dims)`,
        'give 3 dims (without the batch dim) or remove format',
        name,
      ),
    );
  }
  if (io.is_shape_tensor === true && c.platform !== 'tensorrt_plan') {
    out.push(
      error(
        'shape-tensor-platform',
        `shape tensors are only supported for TensorRT platform${suffix} (${kind} '${name}')`,
        'remove is_shape_tensor',
        name,
      ),
    );
  }
  if (io.is_non_linear_format_io === true) {
    if (c.platform !== 'tensorrt_plan') {
      out.push(
        error(
          'non-linear-io-platform',
          `Non-linear IO format is only supported for the TensorRT platform${suffix} (${kind} '${name}')`,
          'remove is_non_linear_format_io',
          name,
        ),
      );
    } else if (dims.length !== 3) {
      out.push(
        error(
          'non-linear-io-dims',
          `Non-linear IO format ${kind} requires 3 dims${suffix} ('${name}' has ${dims.length})`,
          'give 3 dims',
          name,
        ),
      );
    }
  }
  return out;
}

const BATCH_INPUT_KINDS = new Set(ENUMS['BatchInput.Kind']);

/** Batch inputs and outputs (core `ValidateBatchIO`). */
function checkBatchIO(config: ModelConfig, name: string): Diagnostic[] {
  const out: Diagnostic[] = [];
  const suffix = ` for ${name}`;
  const inputs = new Set(asList(config.input).map((i) => String(i.name ?? '')));
  const outputs = new Set(asList(config.output).map((o) => String(o.name ?? '')));
  const unknownSources = (b: Record<string, unknown>): Diagnostic[] =>
    asList<string>(b.source_input)
      .filter((s) => !inputs.has(s))
      .map((s) =>
        error(
          'batch-io-unknown-source',
          `unknown source input name '${s}'${suffix}`,
          `use one of the model inputs: ${[...inputs].join(', ') || '(none)'}`,
          s,
        ),
      );
  for (const b of asList(config.batch_input)) {
    const kind = typeof b.kind === 'string' ? b.kind : 'BATCH_ELEMENT_COUNT';
    const sources = asList<string>(b.source_input);
    if (!BATCH_INPUT_KINDS.has(kind))
      out.push(error('batch-io-kind', `unknown batch input kind '${kind}'${suffix}`, 'use a BatchInput.Kind value'));
    else if (sources.length !== 1)
      out.push(
        error(
          'batch-io-source',
          `batch input kind '${kind}' expects 1 source input, got ${sources.length}${suffix}`,
          'give exactly one source_input',
        ),
      );
    const dtype = typeof b.data_type === 'string' ? b.data_type : 'TYPE_INVALID';
    if (dtype !== 'TYPE_INT32' && dtype !== 'TYPE_FP32') {
      out.push(
        error(
          'batch-io-dtype',
          `batch input data type must be TYPE_INT32 or TYPE_FP32${suffix} (got ${dtype})`,
          'set data_type: TYPE_INT32 or TYPE_FP32',
        ),
      );
    }
    out.push(...unknownSources(b));
  }
  for (const b of asList(config.batch_output)) {
    const kind = typeof b.kind === 'string' ? b.kind : 'BATCH_SCATTER_WITH_INPUT_SHAPE';
    const sources = asList<string>(b.source_input);
    if (kind !== 'BATCH_SCATTER_WITH_INPUT_SHAPE')
      out.push(
        error(
          'batch-io-kind',
          `unknown batch output kind '${kind}'${suffix}`,
          'use kind: BATCH_SCATTER_WITH_INPUT_SHAPE',
        ),
      );
    else if (sources.length !== 1)
      out.push(
        error(
          'batch-io-source',
          `batch output kind '${kind}' expects 1 source input, got ${sources.length}${suffix}`,
          'give exactly one source_input',
        ),
      );
    out.push(...unknownSources(b));
    const seen = new Set<string>();
    for (const t of asList<string>(b.target_name)) {
      if (!outputs.has(t))
        out.push(
          error(
            'batch-io-unknown-target',
            `unknown target output name '${t}'${suffix}`,
            `use one of the model outputs: ${[...outputs].join(', ') || '(none)'}`,
            t,
          ),
        );
      else if (seen.has(t))
        out.push(
          error(
            'batch-io-duplicate-target',
            `target output name '${t}' can only be specified once${suffix}`,
            `list '${t}' once`,
            t,
          ),
        );
      seen.add(t);
    }
  }
  return out;
}

/**
 * Every input and output, duplicates, and batch inputs/outputs. `versions` tells whether a model
 * file can exist: an auto-completing backend with a version directory may fill missing
 * data_type/dims at load, so those are warnings there and errors otherwise.
 */
export function checkIO(config: ModelConfig, m: string, versions?: readonly number[]): Diagnostic[] {
  const out: Diagnostic[] = [];
  const c: IOContext = {
    m,
    name: config.name || m,
    mbs: config.max_batch_size ?? 0,
    platform: config.platform ?? '',
    autoCompletes: AUTO_COMPLETING.has(config.backend ?? '') && (versions?.length ?? 0) > 0,
  };
  for (const kind of ['input', 'output'] as const) {
    const seen = new Set<string>();
    for (const io of asList(config[kind])) {
      out.push(...checkTensor(asRecord(io), kind, c));
      const name = asRecord(io).name;
      if (typeof name !== 'string' || !name) continue;
      if (seen.has(name))
        out.push(
          error(
            'io-duplicate',
            `${m} declares ${kind} '${name}' twice`,
            `rename or remove one of the two '${name}' ${kind}s`,
            name,
          ),
        );
      seen.add(name);
    }
  }
  out.push(...checkBatchIO(config, c.name));
  return out;
}
