import { describe, expect, it } from 'vitest';
import type { ModelConfig } from './modelConfig.ts';
import { normalizeConfig } from './normalizeConfig.ts';

describe('normalizeConfig', () => {
  it('takes the name from the directory only when omitted', () => {
    expect(normalizeConfig({ backend: 'python' }, { dirName: 'add_sub' }).name).toBe('add_sub');
    expect(normalizeConfig({ name: 'x', backend: 'python' }, { dirName: 'add_sub' }).name).toBe('x');
  });

  it.each([
    [{ platform: 'onnxruntime_onnx' }, 'onnxruntime_onnx', 'onnxruntime'],
    [{ backend: 'onnxruntime' }, 'onnxruntime_onnx', 'onnxruntime'],
    [{ platform: 'tensorrt_plan' }, 'tensorrt_plan', 'tensorrt'],
    [{ backend: 'tensorrt' }, 'tensorrt_plan', 'tensorrt'],
    [{ platform: 'pytorch_libtorch' }, 'pytorch_libtorch', 'pytorch'],
    [{ backend: 'pytorch' }, 'pytorch_libtorch', 'pytorch'],
    [{ backend: 'python' }, undefined, 'python'],
  ] as [ModelConfig, string | undefined, string][])(
    'completes the platform/backend pair of %j',
    (config, platform, backend) => {
      const n = normalizeConfig(config, { dirName: 'm' });
      expect([n.platform, n.backend]).toEqual([platform, backend]);
    },
  );

  it.each([
    [['1/model.onnx'], 'onnxruntime_onnx', 'onnxruntime'],
    [['model.onnx'], 'onnxruntime_onnx', 'onnxruntime'],
    [['1/model.py'], undefined, 'python'],
    [['0/model.onnx', '2/model.py'], undefined, 'python'],
    [['1/model.plan'], 'tensorrt_plan', 'tensorrt'],
  ])('infers platform and backend from files %j', (files, platform, backend) => {
    const n = normalizeConfig({}, { dirName: 'm', files });
    expect([n.platform, n.backend]).toEqual([platform, backend]);
  });

  it('leaves ensembles without backend or instance groups', () => {
    const n = normalizeConfig({ platform: 'ensemble' }, { dirName: 'e' });
    expect(n.backend).toBeUndefined();
    expect(n.instance_group).toBeUndefined();
  });

  it('adds a default instance group: count 2 on CPU for onnxruntime, else 1', () => {
    expect(normalizeConfig({ backend: 'onnxruntime' }, { dirName: 'm' }).instance_group).toEqual([
      { name: 'm', kind: 'KIND_CPU', count: 2 },
    ]);
    expect(normalizeConfig({ backend: 'tensorflow' }, { dirName: 'm' }).instance_group).toEqual([
      { name: 'm', kind: 'KIND_CPU', count: 2 },
    ]);
    expect(normalizeConfig({ backend: 'python' }, { dirName: 'm' }).instance_group).toEqual([
      { name: 'm', kind: 'KIND_CPU', count: 1 },
    ]);
    expect(normalizeConfig({ backend: 'onnxruntime' }, { dirName: 'm', gpus: 1 }).instance_group).toEqual([
      { name: 'm', kind: 'KIND_GPU', count: 1 },
    ]);
  });

  it('resolves KIND_AUTO by GPU availability and keeps explicit counts', () => {
    const config: ModelConfig = {
      backend: 'onnxruntime',
      instance_group: [{ kind: 'KIND_AUTO', count: 3 }, { count: 0 }],
    };
    expect(normalizeConfig(config, { dirName: 'm' }).instance_group).toEqual([
      { kind: 'KIND_CPU', count: 3 },
      { kind: 'KIND_CPU', count: 2 },
    ]);
    expect(normalizeConfig(config, { dirName: 'm', gpus: 2 }).instance_group).toEqual([
      { kind: 'KIND_GPU', count: 3 },
      { kind: 'KIND_GPU', count: 1 },
    ]);
  });

  it('fills preferred_batch_size with max_batch_size for dynamic batching and the oldest strategy', () => {
    const n = normalizeConfig({ backend: 'python', max_batch_size: 8, dynamic_batching: {} }, { dirName: 'm' });
    expect(n.dynamic_batching?.preferred_batch_size).toEqual([8]);
    const s = normalizeConfig(
      { backend: 'python', max_batch_size: 4, sequence_batching: { oldest: {} } },
      { dirName: 'm' },
    );
    expect(s.sequence_batching?.oldest?.preferred_batch_size).toEqual([4]);
    const kept = normalizeConfig(
      { backend: 'python', max_batch_size: 8, dynamic_batching: { preferred_batch_size: [2] } },
      { dirName: 'm' },
    );
    expect(kept.dynamic_batching?.preferred_batch_size).toEqual([2]);
    const none = normalizeConfig({ backend: 'python', max_batch_size: 0, dynamic_batching: {} }, { dirName: 'm' });
    expect(none.dynamic_batching?.preferred_batch_size).toBeUndefined();
  });

  it('does not change its argument', () => {
    const config: ModelConfig = {
      backend: 'onnxruntime',
      max_batch_size: 2,
      dynamic_batching: {},
      parameters: { k: { string_value: 'v' } },
    };
    const copy = JSON.parse(JSON.stringify(config));
    normalizeConfig(config, { dirName: 'm' });
    expect(config).toEqual(copy);
  });
});
