import { describe, expect, it } from 'vitest';
import type { NodeTiming } from '@ensemble-studio/core';
import { ocrGraph } from '../testing/engineGraphs.ts';
import { planFusion } from './fusion.ts';
import { WARMUP_RUNS } from './costTable.ts';
import { Placer, placementKey, unitKey } from './placement.ts';
import { RunFusion } from './runFusion.ts';

const at = (nodeId: string, startMs: number, endMs: number, computeMs: number, extra: Partial<NodeTiming> = {}) =>
  ({ nodeId, startMs, endMs, computeMs, queueMs: 0, ...extra }) as NodeTiming;

/** The cost table's estimate for a unit of the `ocr` graph's nodes, fused or apart. */
const unitCost = (p: Placer, ids: string[], place: 'fused' | 'apart') =>
  p.costs.estimate(unitKey(ids.map((id) => placementKey('ocr', id))), place);

describe('RunFusion.record', () => {
  const plan = planFusion(ocrGraph(), () => true);

  it("records a unit's group span less its model's compute and the queueing, fused", () => {
    const placer = new Placer();
    const fusion = new RunFusion(placer);
    const groups = fusion.groups(plan, 'ocr'); // nothing measured: every unit fused
    expect([...groups.keys()]).toContain('preprocess');
    // det's fused request: queued 0.5 ms on its first member; the early exit ends it at has_text.
    const timings = [
      at('preprocess', 0, 1.3, 0.8, { queueMs: 0.5 }),
      at('det', 1.3, 14.3, 13),
      at('db', 14.3, 14.6, 0.3),
      at('has_text', 14.6, 15, 0.01),
    ];
    for (let i = 0; i <= WARMUP_RUNS; i++) fusion.record(plan, 'ocr', groups, timings);
    expect(unitCost(placer, ['preprocess', 'db'], 'fused')).toBeCloseTo(15 - 13 - 0.5);
    expect(unitCost(placer, ['has_text', 'crop'], 'fused')).toBeCloseTo(1.5);
  });

  it('counts the time its members held the event loop apart, and skips a unit whose choice was forced', () => {
    const placer = new Placer();
    const fusion = new RunFusion(placer);
    fusion.groups(plan, 'ocr');
    const timings = [
      at('preprocess', 0, 0.8, 0.8, { placement: 'inline' }),
      at('det', 0.8, 14.5, 13),
      at('db', 14.5, 14.8, 0.25, { placement: 'inline' }),
      at('has_text', 14.8, 14.9, 0.05, { placement: 'inline' }),
    ];
    // This run fused nothing: the first unit ran apart, so the tail could not fuse.
    for (let i = 0; i <= WARMUP_RUNS; i++) fusion.record(plan, 'ocr', new Map(), timings);
    expect(unitCost(placer, ['preprocess', 'db'], 'apart')).toBeCloseTo(14.9 - 13 + 0.8 + 0.25 + 0.05);
    expect(unitCost(placer, ['has_text', 'crop'], 'apart')).toBeUndefined();
  });

  it('records nothing for a group whose model did not run', () => {
    const placer = new Placer();
    const fusion = new RunFusion(placer);
    const groups = fusion.groups(plan, 'ocr');
    for (let i = 0; i <= WARMUP_RUNS; i++) fusion.record(plan, 'ocr', groups, [at('preprocess', 0, 1, 1)]);
    expect(unitCost(placer, ['preprocess', 'db'], 'fused')).toBeUndefined();
  });
});
