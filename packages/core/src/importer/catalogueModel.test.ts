import { describe, expect, it } from 'vitest';
import { catalogueModelFromConfig, parseStudioMarker } from './catalogueModel.ts';

describe('catalogueModelFromConfig', () => {
  it('reads signature, batching, decoupled and platform/backend', () => {
    const m = catalogueModelFromConfig(
      'rep',
      {
        backend: 'python',
        max_batch_size: 4,
        input: [{ name: 'IN', data_type: 'TYPE_STRING', dims: [-1], optional: true }],
        output: [{ name: 'OUT', data_type: 'TYPE_FP16', dims: [2, 3] }],
        model_transaction_policy: { decoupled: true },
      },
      [1, 3],
    );
    expect(m).toMatchObject({
      name: 'rep',
      versions: [1, 3],
      platform: '',
      backend: 'python',
      maxBatchSize: 4,
      decoupled: true,
      inputs: [{ name: 'IN', datatype: 'BYTES', dims: [-1], optional: true }],
      outputs: [{ name: 'OUT', datatype: 'FP16', dims: [2, 3] }],
    });
    expect(m.generated).toBeUndefined();
    expect(m.error).toBeUndefined();
  });

  it('defaults a missing max_batch_size to 0 and marks generated models', () => {
    const m = catalogueModelFromConfig(
      'g',
      {
        backend: 'python',
        parameters: { ensemble_studio: { string_value: '{"kind":"router","mode":"copy","count":2}' } },
      },
      [1],
    );
    expect(m.maxBatchSize).toBe(0);
    expect(m.generated).toEqual({ kind: 'router', mode: 'copy', count: 2 });
  });

  it('ignores a marker that is not JSON with a kind', () => {
    expect(parseStudioMarker({ parameters: { ensemble_studio: { string_value: 'router' } } })).toBeUndefined();
    expect(parseStudioMarker({ parameters: { ensemble_studio: { string_value: '[1]' } } })).toBeUndefined();
  });

  it('sets error for unknown data types', () => {
    const m = catalogueModelFromConfig(
      'bad',
      { platform: 'onnxruntime_onnx', input: [{ name: 'x', data_type: 'TYPE_FLOAT', dims: [1] }] },
      [1],
    );
    expect(m.inputs).toEqual([]);
    expect(m.error).toBe("input 'x' has unknown data_type 'TYPE_FLOAT'");
  });
});
