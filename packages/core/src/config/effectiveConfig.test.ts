import { describe, expect, it } from 'vitest';
import type { ModelConfig } from '../pbtxt/modelConfig.ts';
import { effectiveConfig, type EffectiveConfigOptions } from './effectiveConfig.ts';

const io = (name: string, dims: number[], data_type = 'TYPE_FP32') => ({ name, data_type, dims });
const PINNED = { input_pinned_memory: { enable: true }, output_pinned_memory: { enable: true } };
const LATEST_1 = { latest: { num_versions: 1 } };
const step = (model_name: string) => ({
  model_name,
  model_version: -1,
  input_map: { INPUT0: 'data' },
  output_map: { OUTPUT0: 'prob' },
});
const ensemble = (name: string, inner: string): ModelConfig => ({
  name,
  platform: 'ensemble',
  max_batch_size: 2,
  input: [io('data', [16])],
  output: [io('prob', [16])],
  ensemble_scheduling: { step: [step(inner)] },
});
const identity: ModelConfig = {
  name: 'ident',
  backend: 'identity',
  max_batch_size: 4,
  input: [io('INPUT0', [16])],
  output: [io('OUTPUT0', [16])],
};

type Case = [what: string, config: ModelConfig, opts: EffectiveConfigOptions, expected: ModelConfig];

// Each expectation is what Triton reports for that config after load (its qa auto-complete cases and docs).
const CASES: Case[] = [
  [
    'an ONNX model on CPU: backend, default file, two CPU instances, pinned memory',
    {
      name: 'cpu_instance',
      platform: 'onnxruntime_onnx',
      max_batch_size: 8,
      version_policy: LATEST_1,
      input: [io('INPUT0', [-1, -1], 'TYPE_FP16')],
      output: [io('OUTPUT0', [-1, -1], 'TYPE_FP16')],
      instance_group: [{ name: 'cpu_instance', kind: 'KIND_CPU' }],
    },
    { dirName: 'cpu_instance', files: ['model.onnx'] },
    {
      name: 'cpu_instance',
      platform: 'onnxruntime_onnx',
      backend: 'onnxruntime',
      default_model_filename: 'model.onnx',
      max_batch_size: 8,
      version_policy: LATEST_1,
      input: [io('INPUT0', [-1, -1], 'TYPE_FP16')],
      output: [io('OUTPUT0', [-1, -1], 'TYPE_FP16')],
      instance_group: [{ name: 'cpu_instance', kind: 'KIND_CPU', count: 2 }],
      optimization: PINNED,
    },
  ],
  [
    'an empty Python config on a one-GPU server: named GPU group on GPU 0, model.py',
    {},
    { dirName: 'empty_config', files: ['model.py'], gpus: 1 },
    {
      name: 'empty_config',
      backend: 'python',
      default_model_filename: 'model.py',
      version_policy: LATEST_1,
      instance_group: [{ name: 'empty_config', kind: 'KIND_GPU', count: 1, gpus: [0] }],
      optimization: PINNED,
    },
  ],
  [
    'a custom backend named by the directory (name.<backend>)',
    { max_batch_size: 64, input: [io('INPUT0', [1000], 'TYPE_INT32')], output: [io('OUTPUT0', [1000], 'TYPE_INT32')] },
    { dirName: 'no_backend.identity', gpus: 1 },
    {
      name: 'no_backend.identity',
      backend: 'identity',
      default_model_filename: 'model.identity',
      max_batch_size: 64,
      version_policy: LATEST_1,
      input: [io('INPUT0', [1000], 'TYPE_INT32')],
      output: [io('OUTPUT0', [1000], 'TYPE_INT32')],
      instance_group: [{ name: 'no_backend.identity', kind: 'KIND_GPU', count: 1, gpus: [0] }],
      optimization: PINNED,
    },
  ],
  [
    'a PyTorch model found by its file: libtorch platform, no default file name (Triton sets none on this path), one CPU instance',
    { name: 'pt' },
    { dirName: 'pt', files: ['1/model.pt'] },
    {
      name: 'pt',
      platform: 'pytorch_libtorch',
      backend: 'pytorch',
      version_policy: LATEST_1,
      instance_group: [{ name: 'pt', kind: 'KIND_CPU', count: 1 }],
      optimization: PINNED,
    },
  ],
  [
    'an ensemble of an ensemble: version policy, not decoupled, no instances or optimization',
    ensemble('embedded', 'inner'),
    { dirName: 'embedded', configs: { inner: ensemble('inner', 'ident'), ident: identity } },
    { ...ensemble('embedded', 'inner'), version_policy: LATEST_1, model_transaction_policy: { decoupled: false } },
  ],
  [
    'an ensemble with a decoupled model two levels down is decoupled',
    ensemble('outer', 'inner'),
    {
      dirName: 'outer',
      configs: {
        inner: ensemble('inner', 'gen'),
        gen: { ...identity, name: 'gen', model_transaction_policy: { decoupled: true } },
      },
    },
    { ...ensemble('outer', 'inner'), version_policy: LATEST_1, model_transaction_policy: { decoupled: true } },
  ],
  [
    'batching defaults: preferred size, sequence idle time, oldest preferred size; unnamed groups <model>_<i>',
    { ...identity, instance_group: [{ count: 3 }, { kind: 'KIND_GPU' }], sequence_batching: { oldest: {} } },
    { dirName: 'ident', gpus: 2 },
    {
      ...identity,
      version_policy: LATEST_1,
      optimization: PINNED,
      sequence_batching: { max_sequence_idle_microseconds: 1_000_000, oldest: { preferred_batch_size: [4] } },
      instance_group: [
        { name: 'ident_0', kind: 'KIND_GPU', count: 3, gpus: [0, 1] },
        { name: 'ident_1', kind: 'KIND_GPU', count: 1, gpus: [0, 1] },
      ],
    },
  ],
  [
    'written values win: policy, preferred sizes, idle time, group names and counts, optimization',
    {
      ...identity,
      version_policy: { all: {} },
      dynamic_batching: { preferred_batch_size: [2] },
      instance_group: [{ name: 'g', kind: 'KIND_CPU', count: 5 }],
      optimization: { input_pinned_memory: { enable: false } },
    },
    { dirName: 'ident' },
    {
      ...identity,
      version_policy: { all: {} },
      dynamic_batching: { preferred_batch_size: [2] },
      instance_group: [{ name: 'g', kind: 'KIND_CPU', count: 5 }],
      optimization: { input_pinned_memory: { enable: false }, output_pinned_memory: { enable: true } },
    },
  ],
  [
    'dynamic batching on a non-batching model gets no preferred size',
    { ...identity, max_batch_size: 0, dynamic_batching: {} },
    { dirName: 'ident' },
    {
      ...identity,
      max_batch_size: 0,
      dynamic_batching: {},
      version_policy: LATEST_1,
      optimization: PINNED,
      instance_group: [{ name: 'ident', kind: 'KIND_CPU', count: 1 }],
    },
  ],
];

describe('effectiveConfig', () => {
  it.each(CASES)('%s', (_what, config, opts, expected) => {
    expect(effectiveConfig(config, opts)).toEqual(expected);
  });

  it('does not change its argument', () => {
    const config: ModelConfig = { ...identity, instance_group: [{ kind: 'KIND_AUTO' }] };
    const before = structuredClone(config);
    effectiveConfig(config, { dirName: 'ident' });
    expect(config).toEqual(before);
  });

  it('fills the backend from a default_model_filename as Triton does', () => {
    const c = effectiveConfig(
      { name: 'p', platform: 'onnxruntim', default_model_filename: 'model.onnx' },
      { dirName: 'p' },
    );
    expect([c.platform, c.backend]).toEqual(['onnxruntim', 'onnxruntime']);
  });
});
