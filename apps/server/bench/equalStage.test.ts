import { describe, expect, it } from 'vitest';
import { atEqualStage } from './equalStage.ts';

describe('atEqualStage', () => {
  const stages = [
    { stage: 'preprocess', engine_ms: 0.9, direct_ms: 0.65 },
    { stage: 'det', engine_ms: 17.2, direct_ms: 15.05 },
  ];

  it("scales the ratio by the loop's time for the stage over the engine's", () => {
    // A run whose engine process was 14 % slow at det: 1.25 raw is 1.094 at equal det speed.
    expect(atEqualStage(1.25, stages, 'det')).toBeCloseTo(1.09375, 5);
    // A fast engine process reads higher, not lower.
    expect(atEqualStage(0.95, [{ stage: 'det', engine_ms: 14, direct_ms: 15.4 }], 'det')).toBeCloseTo(1.045, 5);
  });

  it('leaves the ratio unread when a side did not time the stage', () => {
    expect(atEqualStage(1.1, stages, 'rec')).toBeUndefined();
    expect(atEqualStage(1.1, [{ stage: 'det', engine_ms: 0, direct_ms: 15 }], 'det')).toBeUndefined();
  });
});
