import { describe, expect, it } from 'vitest';
import { MAX_ID_LENGTH } from '@ensemble-studio/core';
import type { ServedModel } from '../servedModels.ts';
import { queueParamsOf, responseHead, runError, sequenceOf, type RunResult } from './kserveRun.ts';

const served: ServedModel = {
  name: 'acc',
  versions: [1, 3],
  platform: 'onnxruntime_onnx',
  signature: { inputs: [], outputs: [], maxBatchSize: 0 },
  ready: true,
};
const failed = (code: string, message = 'it broke'): RunResult => ({
  runId: 'e1',
  status: 'failed',
  outputs: {},
  timings: [],
  error: { code, message },
});

describe('sequenceOf', () => {
  it("reads Triton's sequence parameters into the engine's flags", () => {
    expect(sequenceOf(served, { sequence_id: 7, sequence_start: true }, true)).toEqual({
      id: 7,
      start: true,
      end: false,
    });
    expect(sequenceOf(served, { sequence_id: 'abc', sequence_end: true }, false)).toEqual({
      id: 'abc',
      start: false,
      end: true,
    });
    expect(sequenceOf(served, {}, false)).toBeUndefined();
  });

  it('needs a correlation id for a stateful model or a START/END flag, as Triton does', () => {
    expect(() => sequenceOf(served, {}, true)).toThrow(
      /model 'acc' must specify a non-zero or non-empty correlation ID/,
    );
    expect(() => sequenceOf(served, { sequence_id: 0, sequence_start: true }, false)).toThrow(/correlation ID/);
  });

  it('refuses ids JSON cannot carry exactly, and strings longer than an id may be', () => {
    for (const id of [2 ** 53, -1, 1.5, 'x'.repeat(MAX_ID_LENGTH + 1), true])
      expect(() => sequenceOf(served, { sequence_id: id }, false)).toThrow(/Unable to parse 'sequence_id'/);
  });
});

describe('queueParamsOf', () => {
  it("hands the engine a request's queue timeout and priority, each only when positive", () => {
    expect(queueParamsOf({ timeout: 2000, priority: 2 })).toEqual({ queueTimeoutUs: 2000, priority: 2 });
    // gRPC's uint64 past 2^53 arrives as a decimal string: a priority above any model's levels.
    expect(queueParamsOf({ priority: '18446744073709551615' })).toEqual({ priority: 2 ** 64 });
    expect(queueParamsOf({ timeout: 0, priority: 0 })).toEqual({});
    expect(queueParamsOf({})).toEqual({});
  });
});

describe('runError', () => {
  it("maps a failed run's code to Triton's status", () => {
    expect(runError(failed('model-unavailable'))?.status).toBe(503);
    expect(runError(failed('node-failed'))?.status).toBe(500);
    expect(runError(failed('invalid-input'))).toMatchObject({
      status: 400,
      code: 'invalid-input',
      message: 'it broke',
    });
  });

  it("drops the one-model graph's ensemble prefix for a repository model run on its own", () => {
    const r = failed('node-failed', "in ensemble 'acc', node 'model': shape mismatch");
    expect(runError(r, 'acc')?.message).toBe('shape mismatch');
    expect(runError(r)?.message).toBe("in ensemble 'acc', node 'model': shape mismatch");
  });

  it('reports an error-strategy exit as a 400 and nothing for a completed run or a gate', () => {
    const exit = { conditionId: 'c', expression: 'x > 1', value: true, strategy: 'error' as const, message: 'too big' };
    const ended = { runId: 'e1', status: 'exited_early' as const, outputs: {}, timings: [] };
    expect(runError({ ...ended, exit })).toMatchObject({ status: 400, code: 'exited', message: 'too big' });
    expect(runError({ ...ended, exit: { ...exit, strategy: 'gate' } })).toBeUndefined();
    expect(runError({ ...ended, status: 'completed' })).toBeUndefined();
  });
});

describe('responseHead', () => {
  it("names the model, its latest version, and the request's id when it had one", () => {
    expect(responseHead(served, 'q1')).toEqual({ model_name: 'acc', model_version: '3', id: 'q1' });
    expect(responseHead(served, undefined)).toEqual({ model_name: 'acc', model_version: '3' });
  });
});
