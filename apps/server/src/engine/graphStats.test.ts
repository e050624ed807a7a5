import { describe, expect, it } from 'vitest';
import { GraphStats } from './graphStats.ts';

describe('GraphStats.record', () => {
  it('counts completed and early-exited runs as successes, failed and thrown ones as failures, and their time', () => {
    const stats = new GraphStats();
    stats.record('ocr', 'completed', 2);
    stats.record('ocr', 'exited_early', 1);
    stats.record('ocr', 'failed', 0.5);
    stats.record('ocr', 'threw', 0.25);
    const ocr = stats.of('ocr');
    expect([ocr.requestSuccess, ocr.exitedEarly, ocr.requestFailure]).toEqual([2, 1, 2]);
    expect(ocr.durationNs).toBe(3_750_000);
    expect(ocr.lastRunMs).toBeGreaterThan(0);
    expect(stats.of('other').requestSuccess).toBe(0);
  });

  it("classes a failed run's reason as Triton's ensemble does: CANCELED when cancelled, else OTHER", () => {
    const stats = new GraphStats();
    stats.record('ocr', 'failed', 1, 'cancelled');
    stats.record('ocr', 'failed', 1, 'node-failed');
    stats.record('ocr', 'threw', 1);
    expect(stats.of('ocr').failures).toEqual({ REJECTED: 0, CANCELED: 1, BACKEND: 0, OTHER: 2 });
  });

  it('pools the runs of graph names past its bound under one label', () => {
    const stats = new GraphStats();
    for (let i = 0; i < 300; i++) stats.record(`g${i}`, 'completed', 1);
    const names = Object.keys(stats.all());
    expect(names).toHaveLength(257);
    expect(stats.all()['(other graphs)']!.requestSuccess).toBe(300 - 256);
  });
});
