import { describe, expect, it } from 'vitest';
import { perfMsOfNs } from './monotonicClock.ts';

describe('perfMsOfNs', () => {
  it("puts a process.hrtime stamp on performance.now()'s scale", () => {
    const before = performance.now();
    const stamp = perfMsOfNs(Number(process.hrtime.bigint()));
    const after = performance.now();
    // Within the two readings, give or take the offset's own error (microseconds).
    expect(stamp).toBeGreaterThan(before - 0.05);
    expect(stamp).toBeLessThan(after + 0.05);
  });
});
