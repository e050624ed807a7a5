import { describe, expect, it } from 'vitest';
import { encodeRequest } from '../testing/grpcTestClient.ts';
import type { CheckedModel } from '../http/kserveChecks.ts';
import { decodeInferRequest } from './decodeInfer.ts';
import { peekModel } from './peekModel.ts';

const f32 = (n: number) => Buffer.from(new Float32Array(n).fill(0.5).buffer);
const limits = { maxTensorElements: 1 << 20, maxNames: 4 };

describe('peekModel', () => {
  it('reads model_name and model_version from the first bytes, whatever follows', () => {
    const bytes = encodeRequest('ModelInfer', {
      model_name: 'détection',
      model_version: '2',
      inputs: [{ name: 'x', datatype: 'FP32', shape: [1] }],
      raw_input_contents: [f32(1)],
    });
    expect(peekModel(bytes)).toEqual({ name: 'détection', version: '2' });
    expect(peekModel(encodeRequest('ModelInfer', { model_name: 'm' }))).toEqual({ name: 'm', version: '' });
    expect(peekModel(encodeRequest('ModelInfer', { id: 'no-name' }))).toBeUndefined();
    expect(peekModel(bytes.subarray(0, 4))).toBeUndefined();
  });
});

describe('decodeInferRequest', () => {
  const request = (names: string[]) =>
    encodeRequest('ModelInfer', {
      model_name: 'm',
      inputs: names.map((name) => ({ name, datatype: 'FP32', shape: [2] })),
      raw_input_contents: names.map(() => f32(2)),
    });
  const model: CheckedModel = { name: 'm', signature: { inputs: [{ name: 'x', datatype: 'FP32', shape: [-1] }] } };

  it('decodes the tensors apart from the request, which keeps the inputs without their contents', () => {
    const { request: req, inputs } = decodeInferRequest(request(['x']), { ...limits, model });
    expect(Array.from(inputs.x!.data as Float32Array)).toEqual([0.5, 0.5]);
    expect(req.raw_input_contents).toEqual([]);
    expect(req.inputs.map((i) => [i.name, i.shape.map(Number)])).toEqual([['x', [2]]]);
  });

  it('returns an input and an output in shared memory as their windows, for the main thread to read and write', () => {
    const window = (region: string, size: number) => ({
      shared_memory_region: { string_param: region },
      shared_memory_byte_size: { int64_param: String(size) },
    });
    const bytes = encodeRequest('ModelInfer', {
      model_name: 'm',
      inputs: [{ name: 'x', datatype: 'FP32', shape: [2], parameters: window('in', 8) }],
      outputs: [{ name: 'y', parameters: window('out', 16) }],
    });
    const d = decodeInferRequest(bytes, { ...limits, model });
    expect(d.inputs).toEqual({});
    expect(d.shared).toEqual([{ name: 'x', datatype: 'FP32', shape: [2], region: 'in', offset: 0, byteSize: 8 }]);
    expect(d.outputWindows).toEqual([{ name: 'y', shm: { region: 'out', offset: 0, byteSize: 16 } }]);
  });

  it('checks against the model as Triton does; without one, refuses more inputs than any model can have', () => {
    expect(() => decodeInferRequest(request(['x', 'y']), { ...limits, model })).toThrow(
      "expected 1 inputs but got 2 inputs for model 'm'. Got input(s) ['x','y'], but missing required input(s) ]. Please provide all required input(s).",
    );
    expect(() => decodeInferRequest(request(['a', 'b', 'c', 'd', 'e']), limits)).toThrow(
      "model 'm': the request names 5 inputs, more than a model can have here (maxGraphNodes=4)",
    );
    expect(Object.keys(decodeInferRequest(request(['a', 'b']), limits).inputs)).toEqual(['a', 'b']);
  });
});
