import { describe, expect, it } from 'vitest';
import type { NodeTiming } from '@ensemble-studio/core';
import { timelineTitle } from './timelineTitle.ts';

const base: NodeTiming = { nodeId: 'rec', queueMs: 0, computeMs: 24, startMs: 16, endMs: 41 };

describe('timelineTitle', () => {
  it("says where an op ran, and that a model's request was run by the worker of the model before it", () => {
    expect(timelineTitle({ ...base, nodeId: 'ctc', computeMs: 0.3, instance: 'rec_0', placement: 'fused:rec' })).toBe(
      'ctc: queued 0.0 ms, computed 0.3 ms on rec_0 (fused:rec)',
    );
    expect(timelineTitle({ ...base, instance: 'rec_0', hosted: true })).toBe(
      'rec: queued 0.0 ms, computed 24.0 ms on rec_0 (run by the worker of the model before it)',
    );
    expect(timelineTitle({ ...base, instance: 'rec_0', hosted: false })).toBe(
      'rec: queued 0.0 ms, computed 24.0 ms on rec_0',
    );
  });

  it("adds a batch and a model request's phases", () => {
    const t = { ...base, batchSize: 4, computeStartMs: 16, inferStartMs: 16.3, inferEndMs: 40.5 };
    expect(timelineTitle(t)).toBe(
      'rec: queued 0.0 ms, computed 24.0 ms in a batch of 4; to the model 0.3 ms, its own run 24.2 ms, back 0.5 ms',
    );
  });
});
