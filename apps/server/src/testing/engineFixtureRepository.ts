// Repositories built in code for engine tests and the bench: the synthetic models and the real npm
// models (det/rec/cls/vad) in a given directory, with their configs as JSON (no pbtxt needed).
// No vitest here: the bench imports it (tests use engineFixtures.ts, which adds scratch directories).
import { copyFileSync, mkdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Catalogue, CatalogueModel, GraphDoc, ModelConfig } from '@ensemble-studio/core';
import { fromConfigType } from '@ensemble-studio/core';
import { modelSources } from '../examples/modelSources.ts';
import { servedSileroVad } from '../examples/prepare.ts';
import { buildSyntheticModels, SYNTHETIC } from '../onnx/synthetic.ts';
import type { Repository } from '../repo/types.ts';

/** A catalogue entry from a config (dims as in config.pbtxt; the file is `<dir>/<name>/1/model.onnx`). */
function catalogueModel(name: string, config: ModelConfig): CatalogueModel {
  const spec = (t: { name: string; data_type: string; dims: number[]; optional?: boolean }) => ({
    name: t.name,
    datatype: fromConfigType(t.data_type) ?? 'FP32',
    dims: [...t.dims],
    optional: t.optional,
  });
  return {
    name,
    versions: [1],
    platform: 'onnxruntime_onnx',
    backend: 'onnxruntime',
    maxBatchSize: config.max_batch_size ?? 0,
    inputs: (config.input ?? []).map(spec),
    outputs: (config.output ?? []).map(spec),
    decoupled: config.model_transaction_policy?.decoupled === true,
    config: { name, platform: 'onnxruntime_onnx', ...config },
  };
}

/** A Repository over `dir` with the given configs; graphs as given. */
function repositoryOf(
  dir: string,
  configs: Record<string, ModelConfig>,
  graphs: Record<string, GraphDoc> = {},
): Repository {
  const catalogue: Catalogue = {
    models: Object.fromEntries(Object.entries(configs).map(([n, c]) => [n, catalogueModel(n, c)])),
  };
  return {
    dir,
    catalogue,
    graphs,
    problems: [],
    modelFile: (m) => (configs[m] ? join(dir, m, '1', 'model.onnx') : undefined),
  };
}

const fp32 = (name: string, dims: number[]) => ({ name, data_type: 'TYPE_FP32', dims });

/** Configs of the synthetic models (the shared-features example's). */
export function syntheticConfigs(): Record<string, ModelConfig> {
  const { D, F, C, S } = SYNTHETIC;
  return {
    extractor: {
      max_batch_size: 64,
      input: [fp32('x', [D])],
      output: [fp32('feat', [F])],
      instance_group: [{ count: 1, kind: 'KIND_CPU' }],
    },
    head: {
      max_batch_size: 64,
      input: [fp32('feat', [F])],
      output: [fp32('logits', [C])],
      instance_group: [{ count: 2, kind: 'KIND_CPU' }],
    },
    accumulator: {
      max_batch_size: 64,
      input: [fp32('x', [S])],
      output: [fp32('y', [S])],
      instance_group: [{ count: 1, kind: 'KIND_CPU' }],
      sequence_batching: {
        oldest: { max_candidate_sequences: 64, preferred_batch_size: [64], max_queue_delay_microseconds: 0 },
        state: [
          {
            input_name: 'state_in',
            output_name: 'state_out',
            data_type: 'TYPE_FP32',
            dims: [S],
            initial_state: [{ data_type: 'TYPE_FP32', dims: [S], zero_data: true, name: 'zeros' }],
          },
        ],
      },
    },
  };
}

/** Configs of the real models as the examples declare them (vad as `servedSileroVad` makes it). */
export function realConfigs(): Record<string, ModelConfig> {
  return {
    det: {
      max_batch_size: 0,
      input: [fp32('x', [-1, 3, -1, -1])],
      output: [fp32('sigmoid_0.tmp_0', [-1, 1, -1, -1])],
      instance_group: [{ count: 1, kind: 'KIND_CPU' }],
    },
    rec: {
      max_batch_size: 0,
      input: [fp32('x', [-1, 3, 48, -1])],
      output: [fp32('softmax_11.tmp_0', [-1, -1, 6625])],
      instance_group: [{ count: 1, kind: 'KIND_CPU' }],
    },
    cls: {
      max_batch_size: 0,
      input: [fp32('x', [-1, 3, -1, -1])],
      output: [fp32('softmax_0.tmp_0', [-1, 2])],
      instance_group: [{ count: 1, kind: 'KIND_CPU' }],
    },
    vad: {
      max_batch_size: 64,
      input: [fp32('input', [-1])],
      output: [fp32('output', [1])],
      instance_group: [{ count: 2, kind: 'KIND_CPU' }],
      sequence_batching: {
        max_sequence_idle_microseconds: 5_000_000,
        oldest: { max_candidate_sequences: 256, preferred_batch_size: [64], max_queue_delay_microseconds: 0 },
        state: [
          {
            input_name: 'state',
            output_name: 'stateN',
            data_type: 'TYPE_FP32',
            dims: [2, 128],
            initial_state: [{ data_type: 'TYPE_FP32', dims: [2, 128], zero_data: true, name: 'zeros' }],
          },
        ],
      },
    },
  };
}

/**
 * Writes the chosen models into the existing directory `dir` and returns its Repository. The npm models are
 * symlinked, not copied (~28 MB): nothing here writes to a model file. `overrides` replace (shallowly) a model's
 * config, e.g. `{ head: { instance_group: [{ count: 1 }] } }`.
 * @example const repo = writeEngineRepository(dir, ['head', 'vad']);
 */
export function writeEngineRepository(
  dir: string,
  models: string[],
  overrides: Record<string, Partial<ModelConfig>> = {},
): Repository {
  const synthetic = buildSyntheticModels();
  const sources = modelSources();
  const all = { ...syntheticConfigs(), ...realConfigs() };
  const configs: Record<string, ModelConfig> = {};
  for (const name of models) {
    const base = all[name];
    if (!base) throw new Error(`no test model '${name}'`);
    configs[name] = { ...base, ...overrides[name] };
    mkdirSync(join(dir, name, '1'), { recursive: true });
    const file = join(dir, name, '1', 'model.onnx');
    rmSync(file, { force: true }); // written again over an earlier call's (a reload test edits the repository)
    if (synthetic[name]) writeFileSync(file, synthetic[name]);
    else if (name === 'vad') writeFileSync(file, servedSileroVad(readFileSync(sources.vad)));
    else symlinkSync(sources[name as 'det' | 'rec' | 'cls'], file);
  }
  // Copied (26 KB): ops read repository files through safeJoin, which refuses a symlink out of the repository.
  if (models.includes('rec')) copyFileSync(sources.dictionary, join(dir, 'rec', 'ppocr_keys_v1.txt'));
  return repositoryOf(dir, configs);
}
