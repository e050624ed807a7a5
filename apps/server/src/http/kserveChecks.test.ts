import { describe, expect, it } from 'vitest';
import type { Tensor } from '@ensemble-studio/core';
import { checkInputs, checkNameCounts, checkOutputNames, type CheckedModel } from './kserveChecks.ts';

const fp32 = (shape: number[]): Tensor => ({
  datatype: 'FP32',
  shape,
  data: new Float32Array(shape.reduce((a, b) => a * b, 1)),
});
const fp32Spec = (name: string) => ({ name, datatype: 'FP32' as const, shape: [1] });
const batched: CheckedModel = {
  name: 'head',
  signature: {
    inputs: [
      { name: 'feat', datatype: 'FP32', shape: [-1, 4] },
      { name: 'mask', datatype: 'FP32', shape: [-1, 4] },
    ],
    maxBatchSize: 8,
  },
};
const withOptional: CheckedModel = {
  name: 'opt',
  signature: {
    inputs: [
      { name: 'x', datatype: 'FP32', shape: [2] },
      { name: 'y', datatype: 'FP32', shape: [2], optional: true },
    ],
    maxBatchSize: 0,
  },
};

/** The message `check` throws. */
function thrown(check: () => void): string {
  try {
    check();
  } catch (err) {
    return (err as Error).message;
  }
  return '';
}

// Triton's wording, from core's InferenceRequest::Normalize and ValidateRequestInputs (infer_request.cc).
describe('checkInputs', () => {
  it('counts inputs first, naming those given and the required ones missing', () => {
    expect(() => checkInputs(batched, { feat: fp32([1, 4]) })).toThrow(
      "[request id: <id_unknown>] expected 2 inputs but got 1 inputs for model 'head'. Got input(s) ['feat'], but missing required input(s) ['mask']. Please provide all required input(s).",
    );
    expect(() => checkInputs(withOptional, {})).toThrow(
      "expected number of inputs between 1 and 2 but got 0 inputs for model 'opt'. Got input(s) [], but missing required input(s) ['x']. Please provide all required input(s).",
    );
    expect(() => checkInputs(withOptional, { x: fp32([2]), y: fp32([2]), z: fp32([2]) })).toThrow(
      "expected number of inputs between 1 and 2 but got 3 inputs for model 'opt'. Got input(s) ['x','y','z'], but missing required input(s) ]. Please provide all required input(s).",
    );
  });

  it('refuses an unknown name when the count is right (the model lookup, whose message has no request prefix)', () => {
    expect(thrown(() => checkInputs(withOptional, { z: fp32([2]) }, 'r1'))).toBe(
      "unexpected inference input 'z' for model 'opt'",
    );
  });

  it("starts core's request messages with the request's id, <id_unknown> when it has none", () => {
    expect(thrown(() => checkInputs(batched, { feat: fp32([9, 4]), mask: fp32([9, 4]) }, 'r1'))).toBe(
      "[request id: r1] inference request batch-size must be <= 8 for 'head'",
    );
    expect(thrown(() => checkInputs(withOptional, { x: fp32([3]) }, ''))).toBe(
      "[request id: <id_unknown>] unexpected shape for input 'x' for model 'opt'. Expected [2], got [3]. ",
    );
    expect(thrown(() => checkNameCounts(withOptional, ['x', 'x', 'x'], undefined, 'r2'))).toBe(
      "[request id: r2] input 'x' already exists in request",
    );
    // Asked for twice within the model's output count: refused too (core's AddOriginalRequestedOutput).
    const two: CheckedModel = {
      ...withOptional,
      signature: { ...withOptional.signature, outputs: [fp32Spec('a'), fp32Spec('b')] },
    };
    expect(thrown(() => checkOutputNames(two, ['a', 'a'], 'r3'))).toBe(
      "[request id: r3] output 'a' already exists in request",
    );
    expect(thrown(() => checkOutputNames(two, ['c'], 'r3'))).toBe("unexpected inference output 'c' for model 'opt'");
  });

  it('checks the batch dimension before datatypes and shapes', () => {
    expect(() => checkInputs(batched, { feat: fp32([9, 4]), mask: fp32([9, 4]) })).toThrow(
      "inference request batch-size must be <= 8 for 'head'",
    );
    expect(() => checkInputs(batched, { feat: fp32([2, 4]), mask: fp32([3, 4]) })).toThrow(
      "input 'mask' batch size does not match other inputs for 'head'",
    );
    expect(() => checkInputs(batched, { feat: fp32([]), mask: fp32([1, 4]) })).toThrow(
      "input 'feat' has no shape but model requires batch dimension for 'head'",
    );
    const int32: Tensor = { datatype: 'INT32', shape: [9, 4], data: new Int32Array(36) };
    expect(() => checkInputs(batched, { feat: int32, mask: fp32([9, 4]) })).toThrow('batch-size must be <= 8');
  });

  it("says how a batching model's shape is read when a shape does not match", () => {
    expect(() => checkInputs(batched, { feat: fp32([1, 3]), mask: fp32([1, 4]) })).toThrow(
      "unexpected shape for input 'feat' for model 'head'. Expected [-1,4], got [1,3]. NOTE: Setting a non-zero max_batch_size in the model config requires a batch dimension to be prepended to each input shape.",
    );
    expect(() => checkInputs(withOptional, { x: fp32([3]) })).toThrow(
      /^\[request id: <id_unknown>\] unexpected shape for input 'x' for model 'opt'\. Expected \[2\], got \[3\]\. $/,
    );
  });

  it('takes a request that fits', () => {
    expect(() => checkInputs(batched, { feat: fp32([8, 4]), mask: fp32([8, 4]) })).not.toThrow();
    expect(() => checkInputs(withOptional, { x: fp32([2]) })).not.toThrow();
  });
});

describe('checkNameCounts', () => {
  it('refuses a repeated name before counting, then too many inputs as Triton counts them', () => {
    expect(() => checkNameCounts(withOptional, ['q', 'x', 'x'], undefined, undefined)).toThrow(
      "input 'x' already exists in request",
    );
    expect(() => checkNameCounts(withOptional, ['x', 'y', 'q'], undefined, undefined)).toThrow(
      /^\[request id: <id_unknown>\] expected number of inputs between 1 and 2 but got 3 inputs for model 'opt'/,
    );
    expect(() => checkNameCounts(withOptional, ['x', 'y'], undefined, undefined)).not.toThrow();
  });
});
