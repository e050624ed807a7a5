import { describe, expect, it } from 'vitest';
import { ChainError, EngineError, ModelError } from './errors.ts';
import { failureReason } from './failureReason.ts';
import { ModelStats } from './Metrics.ts';

describe("a model's failed requests by Triton's reasons", () => {
  it('classes cancelled as CANCELED, refused or timed out as REJECTED, the model failing as BACKEND', () => {
    const cases: [unknown, string][] = [
      [new EngineError('cancelled', 'the client went away'), 'CANCELED'],
      [new EngineError('timeout', 'over its time limit'), 'REJECTED'],
      [new EngineError('limit', 'queue full'), 'REJECTED'],
      [new ModelError('model.py raised', 'model.py:3'), 'BACKEND'],
      [new EngineError('instance-crashed', 'exited'), 'BACKEND'],
      [new ChainError('det failed', 1, [], 'det_0'), 'BACKEND'],
      [new EngineError('output-missing', 'no OUT'), 'BACKEND'],
      [new EngineError('invalid-input', 'bad shape'), 'OTHER'],
      [new EngineError('model-unavailable', 'not loaded'), 'OTHER'],
      [new Error('anything else'), 'OTHER'],
    ];
    for (const [err, reason] of cases) expect([err, failureReason(err)]).toEqual([err, reason]);
  });

  it('counts each failure under its reason and in the total', () => {
    const stats = new ModelStats();
    stats.failure('BACKEND');
    stats.failure('BACKEND');
    stats.failure('CANCELED');
    const m = stats.snapshot(0);
    expect(m.requestFailure).toBe(3);
    expect(m.failures).toEqual({ REJECTED: 0, CANCELED: 1, BACKEND: 2, OTHER: 0 });
    // The snapshot is a copy: later failures do not change it.
    stats.failure('OTHER');
    expect(m.failures.OTHER).toBe(0);
  });
});
