import { describe, expect, it } from 'vitest';
import type { ModelConfig } from './modelConfig.ts';
import { validateModelConfig } from './validateModelConfig.ts';

const BASE: ModelConfig = {
  name: 'm',
  platform: 'onnxruntime_onnx',
  backend: 'onnxruntime',
  max_batch_size: 8,
  input: [{ name: 'x', data_type: 'TYPE_FP32', dims: [3] }],
  output: [{ name: 'y', data_type: 'TYPE_FP32', dims: [3] }],
};
const onnx = (patch: Partial<ModelConfig>): ModelConfig => ({ ...BASE, ...patch });
const withInput = (patch: Record<string, unknown>, extra: Partial<ModelConfig> = {}): ModelConfig =>
  onnx({ input: [{ name: 'x', data_type: 'TYPE_FP32', dims: [3], ...patch }], ...extra });

const ENSEMBLE: ModelConfig = {
  name: 'e',
  platform: 'ensemble',
  max_batch_size: 8,
  input: [{ name: 'IN', data_type: 'TYPE_FP32', dims: [3] }],
  output: [{ name: 'OUT', data_type: 'TYPE_FP32', dims: [3] }],
  ensemble_scheduling: {
    step: [
      { model_name: 'a', model_version: -1, input_map: { x: 'IN' }, output_map: { y: 'mid' } },
      { model_name: 'b', model_version: 2, input_map: { x: 'mid' }, output_map: { y: 'OUT' } },
    ],
  },
};
const ens = (patch: Partial<ModelConfig>): ModelConfig => ({ ...ENSEMBLE, ...patch });
const steps = (...s: Record<string, unknown>[]): Partial<ModelConfig> => ({
  ensemble_scheduling: { step: s as never },
});
const step = (
  input_map: Record<string, string>,
  output_map: Record<string, string>,
  extra: Record<string, unknown> = {},
) => ({ model_name: 'a', model_version: -1, input_map, output_map, ...extra });

const seq = (sb: Record<string, unknown>, extra: Partial<ModelConfig> = {}): ModelConfig =>
  onnx({ sequence_batching: sb, ...extra });
const ctl = (name: string, control: Record<string, unknown>[]) => ({ name, control });
const START_OK = { kind: 'CONTROL_SEQUENCE_START', int32_false_true: [0, 1] };
const state = (s: Record<string, unknown>) => ({
  state: [{ input_name: 'si', output_name: 'so', data_type: 'TYPE_FP32', dims: [-1, 4], ...s }],
});
const init = (i: Record<string, unknown>) =>
  state({ initial_state: [{ name: 'z', data_type: 'TYPE_FP32', dims: [1, 4], zero_data: true, ...i }] });

type Case = [code: string, bad: ModelConfig, good: ModelConfig, dirName?: string];

const CASES: Case[] = [
  ['name-mismatch', BASE, onnx({ name: 'other' }), 'other'],
  ['ensemble-backend', ens({ backend: 'python' }), ENSEMBLE],
  [
    'backend-missing',
    onnx({ platform: undefined, backend: undefined }),
    onnx({ platform: undefined, backend: 'python' }),
  ],
  ['unknown-platform', onnx({ platform: 'onnx', backend: undefined }), BASE],
  [
    'backend-missing',
    onnx({ platform: undefined, backend: undefined, default_model_filename: undefined }),
    onnx({ platform: undefined }),
  ],
  ['platform-backend-mismatch', onnx({ platform: 'onnxruntim' }), BASE],
  [
    'runtime-escape',
    onnx({ runtime: '../other/libtriton_identity.so' }),
    onnx({ runtime: 'sub/../libtriton_onnxruntime.so' }),
  ],
  ['runtime-escape', onnx({ runtime: '/opt/lib/libtriton_x.so' }), onnx({ runtime: 'libtriton_x.so' })],
  [
    'shape-tensor-platform',
    withInput({ is_shape_tensor: true }),
    withInput({ is_shape_tensor: true }, { platform: 'tensorrt_plan', backend: 'tensorrt' }),
  ],
  [
    'non-linear-io-platform',
    withInput({ is_non_linear_format_io: true }),
    withInput({ is_non_linear_format_io: true, dims: [3, 4, 4] }, { platform: 'tensorrt_plan', backend: 'tensorrt' }),
  ],
  [
    'non-linear-io-dims',
    withInput({ is_non_linear_format_io: true }, { platform: 'tensorrt_plan', backend: 'tensorrt' }),
    withInput({ is_non_linear_format_io: true, dims: [3, 4, 4] }, { platform: 'tensorrt_plan', backend: 'tensorrt' }),
  ],
  [
    'instance-group-profile',
    onnx({ instance_group: [{ kind: 'KIND_GPU', profile: ['0'] }] }),
    onnx({ platform: 'tensorrt_plan', backend: 'tensorrt', instance_group: [{ kind: 'KIND_GPU', profile: ['0'] }] }),
  ],
  [
    'rate-limiter-resource-duplicate',
    onnx({
      instance_group: [
        {
          rate_limiter: {
            resources: [
              { name: 'R', count: 1 },
              { name: 'R', count: 2 },
            ],
          },
        },
      ],
    }),
    onnx({
      instance_group: [
        {
          rate_limiter: {
            resources: [
              { name: 'R', count: 1 },
              { name: 'S', count: 2 },
            ],
          },
        },
      ],
    }),
  ],
  [
    'warmup-variable-dims',
    onnx({
      model_warmup: [
        { name: 'w', batch_size: 1, inputs: { x: { data_type: 'TYPE_FP32', dims: [-1], zero_data: true } } },
      ],
    }),
    onnx({
      model_warmup: [
        { name: 'w', batch_size: 1, inputs: { x: { data_type: 'TYPE_FP32', dims: [3], zero_data: true } } },
      ],
    }),
  ],
  [
    'state-duplicate-input',
    seq({ state: [...state({}).state, { ...state({}).state[0], output_name: 'so2' }] }),
    seq({ state: [...state({}).state, { ...state({}).state[0], input_name: 'si2', output_name: 'so2' }] }),
  ],
  [
    'metric-identifier-missing',
    onnx({ model_metrics: { metric_control: [{ histogram_options: { buckets: [1] } }] } }),
    onnx({
      model_metrics: { metric_control: [{ metric_identifier: { family: 'f' }, histogram_options: { buckets: [1] } }] },
    }),
  ],
  [
    'metric-family-missing',
    onnx({
      model_metrics: { metric_control: [{ metric_identifier: { family: '' }, histogram_options: { buckets: [1] } }] },
    }),
    onnx({
      model_metrics: { metric_control: [{ metric_identifier: { family: 'f' }, histogram_options: { buckets: [1] } }] },
    }),
  ],
  [
    'metric-histogram-missing',
    onnx({ model_metrics: { metric_control: [{ metric_identifier: { family: 'f' } }] } }),
    onnx({
      model_metrics: { metric_control: [{ metric_identifier: { family: 'f' }, histogram_options: { buckets: [1] } }] },
    }),
  ],
  [
    'metric-buckets-missing',
    onnx({
      model_metrics: { metric_control: [{ metric_identifier: { family: 'f' }, histogram_options: { buckets: [] } }] },
    }),
    onnx({
      model_metrics: { metric_control: [{ metric_identifier: { family: 'f' }, histogram_options: { buckets: [1] } }] },
    }),
  ],
  [
    'batch-io-unknown-source',
    onnx({
      batch_input: [
        { target_name: ['n'], kind: 'BATCH_ELEMENT_COUNT', data_type: 'TYPE_FP32', source_input: ['nope'] },
      ],
    }),
    onnx({
      batch_input: [{ target_name: ['n'], kind: 'BATCH_ELEMENT_COUNT', data_type: 'TYPE_FP32', source_input: ['x'] }],
    }),
  ],
  [
    'batch-io-dtype',
    onnx({
      batch_input: [{ target_name: ['n'], kind: 'BATCH_ELEMENT_COUNT', data_type: 'TYPE_INT64', source_input: ['x'] }],
    }),
    onnx({
      batch_input: [{ target_name: ['n'], kind: 'BATCH_ELEMENT_COUNT', data_type: 'TYPE_INT32', source_input: ['x'] }],
    }),
  ],
  [
    'batch-io-unknown-target',
    onnx({ batch_output: [{ target_name: ['nope'], kind: 'BATCH_SCATTER_WITH_INPUT_SHAPE', source_input: ['x'] }] }),
    onnx({ batch_output: [{ target_name: ['y'], kind: 'BATCH_SCATTER_WITH_INPUT_SHAPE', source_input: ['x'] }] }),
  ],
  [
    'batch-io-duplicate-target',
    onnx({ batch_output: [{ target_name: ['y', 'y'], kind: 'BATCH_SCATTER_WITH_INPUT_SHAPE', source_input: ['x'] }] }),
    onnx({ batch_output: [{ target_name: ['y'], kind: 'BATCH_SCATTER_WITH_INPUT_SHAPE', source_input: ['x'] }] }),
  ],
  [
    'platform-backend-mismatch',
    onnx({ platform: 'tensorrt_plan' }),
    onnx({ platform: 'tensorrt_plan', backend: 'tensorrt' }),
  ],
  ['python-platform', onnx({ backend: 'python' }), onnx({ backend: 'python', platform: undefined })],
  ['max-batch-size-negative', onnx({ max_batch_size: -1 }), onnx({ max_batch_size: 0 })],
  ['io-name-missing', withInput({ name: '' }), BASE],
  ['io-dtype-missing', withInput({ data_type: 'TYPE_INVALID' }), withInput({ data_type: 'TYPE_STRING' })],
  ['io-dims-missing', withInput({ dims: [] }), withInput({ dims: [1], reshape: { shape: [] } })],
  ['io-dim-invalid', withInput({ dims: [0, -2] }), withInput({ dims: [-1, 1] })],
  [
    'format-dims',
    withInput({ format: 'FORMAT_NHWC', dims: [224, 224] }),
    withInput({ format: 'FORMAT_NCHW', dims: [3, 224, 224] }),
  ],
  [
    'reshape-empty',
    withInput({ dims: [1], reshape: { shape: [] } }, { max_batch_size: 0 }),
    withInput({ dims: [1], reshape: { shape: [1, 1] } }, { max_batch_size: 0 }),
  ],
  [
    'reshape-invalid',
    withInput({ dims: [3], reshape: { shape: [0, 3] } }),
    withInput({ dims: [3], reshape: { shape: [1, 3] } }),
  ],
  [
    'reshape-mismatch',
    withInput({ dims: [2, 3], reshape: { shape: [5] } }),
    withInput({ dims: [2, 3], reshape: { shape: [6] } }),
  ],
  [
    'reshape-mismatch',
    withInput({ dims: [2, -1], reshape: { shape: [-1, 2] } }),
    withInput({ dims: [2, -1], reshape: { shape: [1, 2, -1] } }),
  ],
  [
    'io-duplicate',
    onnx({ input: [BASE.input![0]!, BASE.input![0]!] }),
    onnx({ input: [BASE.input![0]!, { ...BASE.input![0]!, name: 'x2' }] }),
  ],
  [
    'batch-io-source',
    onnx({
      batch_input: [
        { target_name: ['n'], kind: 'BATCH_ELEMENT_COUNT', data_type: 'TYPE_FP32', source_input: ['x', 'y'] },
      ],
    }),
    onnx({
      batch_input: [{ target_name: ['n'], kind: 'BATCH_ELEMENT_COUNT', data_type: 'TYPE_FP32', source_input: ['x'] }],
    }),
  ],
  ['ensemble-instance-group', ens({ instance_group: [{ kind: 'KIND_CPU' }] }), ENSEMBLE],
  [
    'instance-group-gpus',
    onnx({ instance_group: [{ kind: 'KIND_CPU', gpus: [0] }] }),
    onnx({ instance_group: [{ kind: 'KIND_GPU', gpus: [0] }] }),
  ],
  [
    'instance-group-gpus',
    onnx({ instance_group: [{ kind: 'KIND_MODEL', gpus: [1] }] }),
    onnx({ instance_group: [{ kind: 'KIND_MODEL' }] }),
  ],
  ['instance-group-gpu-id', onnx({ instance_group: [{ gpus: [-1] }] }), onnx({ instance_group: [{ gpus: [1] }] })],
  ['instance-group-count', onnx({ instance_group: [{ count: -2 }] }), onnx({ instance_group: [{ count: 3 }] })],
  [
    'preferred-batch-size',
    onnx({ dynamic_batching: { preferred_batch_size: [0] } }),
    onnx({ dynamic_batching: { preferred_batch_size: [1] } }),
  ],
  [
    'preferred-batch-size',
    onnx({ dynamic_batching: { preferred_batch_size: [4, 16] } }),
    onnx({ dynamic_batching: { preferred_batch_size: [4, 8] } }),
  ],
  [
    'priority-level-range',
    onnx({ dynamic_batching: { priority_levels: 2, default_priority_level: 3 } }),
    onnx({ dynamic_batching: { priority_levels: 2, default_priority_level: 2 } }),
  ],
  [
    'priority-level-range',
    onnx({ dynamic_batching: { priority_levels: 2, default_priority_level: 1, priority_queue_policy: { '3': {} } } }),
    onnx({ dynamic_batching: { priority_levels: 2, default_priority_level: 1, priority_queue_policy: { '2': {} } } }),
  ],
  [
    'preserve-ordering-priority',
    onnx({ dynamic_batching: { priority_levels: 2, default_priority_level: 1, preserve_ordering: true } }),
    onnx({ dynamic_batching: { priority_levels: 1, default_priority_level: 1, preserve_ordering: true } }),
  ],
  [
    'preserve-ordering-delay',
    onnx({
      dynamic_batching: {
        preserve_ordering: true,
        default_queue_policy: { timeout_action: 'DELAY', default_timeout_microseconds: 100 },
      },
    }),
    onnx({
      dynamic_batching: {
        preserve_ordering: false,
        default_queue_policy: { timeout_action: 'DELAY', default_timeout_microseconds: 100 },
      },
    }),
  ],
  [
    'preserve-ordering-delay',
    onnx({
      dynamic_batching: {
        preserve_ordering: true,
        priority_queue_policy: { '1': { timeout_action: 'DELAY', default_timeout_microseconds: 5 } },
      },
    }),
    onnx({
      dynamic_batching: {
        preserve_ordering: true,
        default_queue_policy: { timeout_action: 'DELAY', default_timeout_microseconds: 0 },
      },
    }),
  ],
  [
    'sequence-control-name',
    seq({ control_input: [ctl('', [START_OK])] }),
    seq({ control_input: [ctl('START', [START_OK])] }),
  ],
  [
    'sequence-control-tensor-reused',
    seq({
      control_input: [ctl('S', [START_OK]), ctl('S', [{ kind: 'CONTROL_SEQUENCE_END', int32_false_true: [0, 1] }])],
    }),
    seq({ control_input: [ctl('S', [START_OK, { kind: 'CONTROL_SEQUENCE_END', int32_false_true: [0, 1] }])] }),
  ],
  [
    'sequence-control-kind-duplicate',
    seq({ control_input: [ctl('A', [START_OK]), ctl('B', [START_OK])] }),
    seq({ control_input: [ctl('A', [START_OK]), ctl('B', [{ ...START_OK, kind: 'CONTROL_SEQUENCE_READY' }])] }),
  ],
  [
    'sequence-control-form',
    seq({ control_input: [ctl('S', [{ kind: 'CONTROL_SEQUENCE_END' }])] }),
    seq({ control_input: [ctl('S', [{ kind: 'CONTROL_SEQUENCE_END', bool_false_true: [false, true] }])] }),
  ],
  [
    'sequence-control-form',
    seq({ control_input: [ctl('S', [{ ...START_OK, fp32_false_true: [0, 1] }])] }),
    seq({ control_input: [ctl('S', [{ kind: 'CONTROL_SEQUENCE_START', fp32_false_true: [0, 1] }])] }),
  ],
  [
    'sequence-control-size',
    seq({ control_input: [ctl('S', [{ ...START_OK, int32_false_true: [1] }])] }),
    seq({ control_input: [ctl('S', [START_OK])] }),
  ],
  [
    'sequence-corrid-form',
    seq({
      control_input: [
        ctl('C', [{ kind: 'CONTROL_SEQUENCE_CORRID', data_type: 'TYPE_UINT64', int32_false_true: [0, 1] }]),
      ],
    }),
    seq({ control_input: [ctl('C', [{ kind: 'CONTROL_SEQUENCE_CORRID', data_type: 'TYPE_UINT64' }])] }),
  ],
  [
    'sequence-corrid-dtype',
    seq({ control_input: [ctl('C', [{ kind: 'CONTROL_SEQUENCE_CORRID', data_type: 'TYPE_FP32' }])] }),
    seq({ control_input: [ctl('C', [{ kind: 'CONTROL_SEQUENCE_CORRID', data_type: 'TYPE_STRING' }])] }),
  ],
  ['state-names', seq(state({ output_name: '' })), seq(state({}))],
  ['state-dtype', seq(state({ data_type: undefined })), seq(state({ data_type: 'TYPE_INT32' }))],
  ['state-dims', seq(state({ dims: [] })), seq(state({ dims: [4] }))],
  [
    'initial-state-count',
    seq(
      state({
        initial_state: [
          { name: 'a', data_type: 'TYPE_FP32', dims: [1, 4], zero_data: true },
          { name: 'b', data_type: 'TYPE_FP32', dims: [1, 4], zero_data: true },
        ],
      }),
    ),
    seq(init({})),
  ],
  ['initial-state-name', seq(init({ name: '' })), seq(init({ name: 'zeros' }))],
  ['initial-state-dtype', seq(init({ data_type: 'TYPE_INT32' })), seq(init({ data_type: 'TYPE_FP32' }))],
  ['initial-state-dims', seq(init({ dims: [-1, 4] })), seq(init({ dims: [7, 4] }))],
  ['initial-state-dims', seq(init({ dims: [1, 5] })), seq(init({ dims: [1, 4] }))],
  ['initial-state-dims', seq(init({ dims: [4] })), seq(init({ dims: [2, 4] }))],
  [
    'initial-state-data',
    seq(init({ zero_data: undefined })),
    seq(init({ zero_data: undefined, data_file: 'init.bin' })),
  ],
  [
    'preferred-batch-size',
    seq({ oldest: { preferred_batch_size: [9] } }),
    seq({ oldest: { preferred_batch_size: [8] } }),
  ],
  [
    'slot-utilization-range',
    seq({ direct: { minimum_slot_utilization: 1.5 } }),
    seq({ direct: { minimum_slot_utilization: 0.5 } }),
  ],
  [
    'response-cache-sequence',
    seq({}, { response_cache: { enable: true } }),
    seq({}, { response_cache: { enable: false } }),
  ],
  [
    'response-cache-decoupled',
    onnx({ response_cache: { enable: true }, model_transaction_policy: { decoupled: true } }),
    onnx({ response_cache: { enable: true }, model_transaction_policy: { decoupled: false } }),
  ],
  ['ensemble-scheduling-forbidden', onnx({ ensemble_scheduling: ENSEMBLE.ensemble_scheduling }), BASE],
  ['ensemble-scheduling-missing', ens({ ensemble_scheduling: undefined }), ENSEMBLE],
  ['ensemble-optimization', ens({ optimization: { graph: { level: 1 } } }), ENSEMBLE],
  ['ensemble-warmup', ens({ model_warmup: [{ name: 'w' }] }), ENSEMBLE],
  ['ensemble-steps-missing', ens(steps()), ENSEMBLE],
  [
    'step-model-name-missing',
    ens(steps(step({ x: 'IN' }, { y: 'OUT' }, { model_name: '' }))),
    ens(steps(step({ x: 'IN' }, { y: 'OUT' }))),
  ],
  ['step-input-map-missing', ens(steps(step({}, { y: 'OUT' }))), ens(steps(step({ x: 'IN' }, { y: 'OUT' })))],
  [
    'step-output-map-missing',
    ens(steps(step({ x: 'IN' }, {}), step({ x: 'IN' }, { y: 'OUT' }))),
    ens(steps(step({ x: 'IN' }, { y: 'OUT' }))),
  ],
  [
    'step-model-version',
    ens(steps(step({ x: 'IN' }, { y: 'OUT' }, { model_version: undefined }))),
    ens(steps(step({ x: 'IN' }, { y: 'OUT' }, { model_version: 3 }))),
  ],
  [
    'step-model-version',
    ens(steps(step({ x: 'IN' }, { y: 'OUT' }, { model_version: 0 }))),
    ens(steps(step({ x: 'IN' }, { y: 'OUT' }, { model_version: 1 }))),
  ],
  [
    'step-model-version',
    ens(steps(step({ x: 'IN' }, { y: 'OUT' }, { model_version: -2 }))),
    ens(steps(step({ x: 'IN' }, { y: 'OUT' }, { model_version: -1 }))),
  ],
  [
    'ensemble-tensor-multiple-writers',
    ens(steps(step({ x: 'IN' }, { y: 'OUT' }), step({ x: 'IN' }, { y: 'OUT' }))),
    ens(steps(step({ x: 'IN' }, { y: 'OUT' }))),
  ],
  [
    'ensemble-tensor-multiple-writers',
    ens(steps(step({ x: 'IN' }, { y: 'OUT', z: 'OUT' }))),
    ens(steps(step({ x: 'IN' }, { y: 'OUT' }))),
  ],
  [
    'ensemble-tensor-unused',
    ens(steps(step({ x: 'IN' }, { y: 'OUT', z: 'extra' }))),
    ens(steps(step({ x: 'IN' }, { y: 'OUT' }))),
  ],
  [
    'ensemble-tensor-unproduced',
    ens(steps(step({ x: 'IN', w: 'ghost' }, { y: 'OUT' }))),
    ens(steps(step({ x: 'IN', w: 'IN' }, { y: 'OUT' }))),
  ],
  [
    'ensemble-input-unused',
    ens({ input: [...ENSEMBLE.input!, { name: 'IN2', data_type: 'TYPE_FP32', dims: [3] }] }),
    ens({
      input: [...ENSEMBLE.input!, { name: 'IN2', data_type: 'TYPE_FP32', dims: [3] }],
      ...steps(step({ x: 'IN', w: 'IN2' }, { y: 'OUT' })),
    }),
  ],
  [
    'ensemble-output-unwritten',
    ens({ output: [...ENSEMBLE.output!, { name: 'OUT2', data_type: 'TYPE_FP32', dims: [3] }] }),
    ens({
      output: [...ENSEMBLE.output!, { name: 'OUT2', data_type: 'TYPE_FP32', dims: [3] }],
      ...steps(step({ x: 'IN' }, { y: 'OUT', z: 'OUT2' })),
    }),
  ],
  [
    'ensemble-step-unreachable',
    ens(steps(step({ x: 'IN', l: 'loop2' }, { y: 'loop1', z: 'OUT' }), step({ x: 'loop1' }, { y: 'loop2' }))),
    ens(steps(step({ x: 'IN' }, { y: 'mid' }), step({ x: 'mid' }, { y: 'OUT' }))),
  ],
];

describe('validateModelConfig', () => {
  it('accepts the valid base configs', () => {
    expect(validateModelConfig(BASE, { dirName: 'm' })).toEqual([]);
    expect(validateModelConfig(ENSEMBLE, { dirName: 'e' })).toEqual([]);
  });

  it.each(CASES)('%s: triggered by the bad config, not by the good one', (code, bad, good, dirName) => {
    const codes = (c: ModelConfig) => validateModelConfig(c, dirName ? { dirName } : {}).map((d) => d.code);
    expect(codes(bad)).toContain(code);
    expect(codes(good)).not.toContain(code);
  });

  it('gives every diagnostic a message naming the model and a fix', () => {
    for (const [, bad] of CASES) {
      for (const d of validateModelConfig(bad)) {
        expect(d.message.length).toBeGreaterThan(10);
        expect(d.fix?.length ?? 0).toBeGreaterThan(3);
      }
    }
  });

  it('names the directory in a name mismatch', () => {
    const [d] = validateModelConfig(BASE, { dirName: 'other' });
    expect(d).toMatchObject({ code: 'name-mismatch', severity: 'error' });
    expect(d?.message).toContain("'other'");
  });

  it('accepts dims [1] reshaped to [] on a batching model', () => {
    expect(validateModelConfig(withInput({ dims: [1], reshape: { shape: [] } }))).toEqual([]);
  });

  it('flags an ensemble output written only through an unreachable step', () => {
    const codes = validateModelConfig(
      ens(steps(step({ x: 'IN', l: 'b' }, { y: 'a', z: 'OUT' }), step({ x: 'a' }, { y: 'b' }))),
    ).map((d) => d.code);
    expect(codes).toEqual(['ensemble-output-unwritten', 'ensemble-step-unreachable', 'ensemble-step-unreachable']);
  });
});
