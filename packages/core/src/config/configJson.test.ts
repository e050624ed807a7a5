import { describe, expect, it } from 'vitest';
import { configJson } from './configJson.ts';
import { effectiveConfig } from './effectiveConfig.ts';

describe('configJson', () => {
  const python = configJson(
    effectiveConfig(
      { input: [{ name: 'IN', data_type: 'TYPE_FP32', dims: [4] }] },
      { dirName: 'add', files: ['model.py'] },
    ),
  );

  it('prints every primitive field with its default, as Triton does', () => {
    expect(python).toMatchObject({
      name: 'add',
      platform: '',
      backend: 'python',
      runtime: '',
      max_batch_size: 0,
      default_model_filename: 'model.py',
      batch_input: [],
      batch_output: [],
      cc_model_filenames: {},
      metric_tags: {},
      parameters: {},
      model_warmup: [],
      version_policy: { latest: { num_versions: 1 } },
    });
    expect(python.input?.[0]).toEqual({
      name: 'IN',
      data_type: 'TYPE_FP32',
      format: 'FORMAT_NONE',
      dims: [4],
      is_shape_tensor: false,
      allow_ragged_batch: false,
      optional: false,
      is_non_linear_format_io: false,
    });
    expect(python.instance_group?.[0]).toEqual({
      name: 'add',
      kind: 'KIND_CPU',
      count: 1,
      gpus: [],
      secondary_devices: [],
      profile: [],
      passive: false,
      host_policy: '',
    });
    expect(python.optimization).toEqual({
      priority: 'PRIORITY_DEFAULT',
      input_pinned_memory: { enable: true },
      output_pinned_memory: { enable: true },
      gather_kernel_buffer_threshold: 0,
      eager_batching: false,
    });
  });

  it('leaves unset messages and oneof members out', () => {
    for (const key of [
      'dynamic_batching',
      'sequence_batching',
      'ensemble_scheduling',
      'model_transaction_policy',
      'response_cache',
      'model_metrics',
      'reshape',
    ]) {
      expect(Object.keys(python)).not.toContain(key);
      expect(Object.keys(python.input?.[0] ?? {})).not.toContain(key);
    }
  });

  it('prints ensemble steps with model_namespace and numeric model_version, and the decoupled flag', () => {
    const e = configJson(
      effectiveConfig(
        {
          name: 'e',
          platform: 'ensemble',
          input: [{ name: 'x', data_type: 'TYPE_FP32', dims: [1] }],
          output: [{ name: 'y', data_type: 'TYPE_FP32', dims: [1] }],
          ensemble_scheduling: {
            step: [{ model_name: 'm', model_version: -1, input_map: { a: 'x' }, output_map: { b: 'y' } }],
          },
        },
        { dirName: 'e' },
      ),
    );
    expect(e.ensemble_scheduling).toEqual({
      step: [
        { model_name: 'm', model_version: -1, input_map: { a: 'x' }, output_map: { b: 'y' }, model_namespace: '' },
      ],
      max_inflight_requests: 0,
    });
    expect(e.model_transaction_policy).toEqual({ decoupled: false });
    expect(e.instance_group).toEqual([]);
  });

  it('prints 64-bit integers as strings except the fields Triton turns back into numbers', () => {
    const j = configJson({
      name: 's',
      backend: 'onnxruntime',
      max_batch_size: 2,
      dynamic_batching: {
        max_queue_delay_microseconds: 100,
        priority_levels: 2,
        default_priority_level: 1,
        default_queue_policy: { default_timeout_microseconds: 5 },
      },
      instance_group: [{ secondary_devices: [{ kind: 'KIND_NVDLA', device_id: 3 }] }],
    });
    expect(j.dynamic_batching).toMatchObject({
      max_queue_delay_microseconds: 100,
      priority_levels: 2,
      default_priority_level: 1,
      default_queue_policy: { default_timeout_microseconds: 5 },
    });
    expect(j.instance_group?.[0]?.secondary_devices).toEqual([{ kind: 'KIND_NVDLA', device_id: '3' }]);
    const seq = configJson({
      sequence_batching: {
        state: [
          {
            input_name: 'i',
            output_name: 'o',
            data_type: 'TYPE_FP32',
            dims: [2],
            initial_state: [{ data_type: 'TYPE_FP32', dims: [2], zero_data: true, name: 'z' }],
          },
        ],
      },
    });
    const state = (seq.sequence_batching as { state: { dims: unknown[]; initial_state: { dims: unknown[] }[] }[] })
      .state[0]!;
    expect([state.dims, state.initial_state[0]!.dims]).toEqual([[2], ['2']]);
  });

  it('passes fields the schema does not know through', () => {
    expect(configJson({ name: 'x', future_field: { a: 1 } } as never)).toMatchObject({ future_field: { a: 1 } });
  });
});
