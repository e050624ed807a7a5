import { describe, expect, it } from 'vitest';
import { ChainError, EngineError, ModelError } from './errors.ts';
import { failureReason } from './failureReason.ts';
import { ModelStats, recordExecution } from './Metrics.ts';

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

describe('recordExecution', () => {
  it("splits an execution into Triton's compute input, infer and output when the backend stamped it", () => {
    const stats = new ModelStats();
    recordExecution(
      stats,
      2,
      { queueNs: 5, computeNs: 900, startNs: 1000, inferStartNs: 1100, inferEndNs: 1400 },
      1450,
    );
    const m = stats.snapshot(0);
    expect([m.queueNs, m.computeInputNs, m.computeNs, m.computeOutputNs, m.inferenceCount]).toEqual([
      5, 100, 300, 50, 2,
    ]);
  });

  it('keeps the compute time whole without stamps (a fused group, a backend that sends none)', () => {
    const stats = new ModelStats();
    recordExecution(stats, 1, { queueNs: 5, computeNs: 900 }, 2000);
    const m = stats.snapshot(0);
    expect([m.computeInputNs, m.computeNs, m.computeOutputNs]).toEqual([0, 900, 0]);
  });
});
