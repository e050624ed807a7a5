import type { NodeTiming } from '@ensemble-studio/core';
import { describe, expect, it } from 'vitest';
import { hopTally, requestHops } from './requestHops.ts';

const t = (nodeId: string, startMs: number, endMs: number, computeMs: number, where: string): NodeTiming => ({
  nodeId,
  queueMs: 0,
  computeMs,
  startMs,
  endMs,
  ...(where.startsWith('fused:') || where === 'inline' || where === 'op-worker'
    ? { placement: where, ...(where === 'op-worker' ? { instance: 'ops_0' } : {}) }
    : { instance: where }),
});

// An OCR-shaped run: det's request with two fused ops, a router on the main thread, then rec and cls side by side.
const run: NodeTiming[] = [
  t('pre', 0, 2, 1, 'fused:det'),
  t('det', 2, 22, 19, 'det_0'),
  t('db', 22, 23, 0.5, 'fused:det'),
  t('fanout', 23.5, 23.5, 0, 'inline'),
  t('cls', 23.8, 27, 2.5, 'cls_0'),
  t('rec', 23.6, 60, 34, 'rec_0'),
  t('ctc', 60, 61, 0.5, 'fused:rec'),
];

describe('requestHops', () => {
  it("takes each model request's span beyond its members' compute, and the main thread's turn before it", () => {
    const hops = requestHops(run);
    expect(hops.map((h) => h.node)).toEqual(['det', 'rec', 'cls']);
    const [det, rec, cls] = hops;
    expect(det!.overheadMs).toBeCloseTo(23 - 20.5);
    expect(det!.dispatchMs).toBe(0);
    expect(rec!.overheadMs).toBeCloseTo(61 - 23.6 - 34.5);
    expect(rec!.dispatchMs).toBeCloseTo(0.6); // from det's reply (its last member's end), not from the router
    expect(cls!.overheadMs).toBeCloseTo(27 - 23.8 - 2.5);
    expect(cls!.dispatchMs).toBeCloseTo(0.8);
  });

  it('leaves out ops fused into a node that reported no timing of its own, and ops run elsewhere', () => {
    expect(requestHops([t('pre', 0, 1, 1, 'fused:det'), t('crop', 1, 3, 1, 'op-worker')])).toEqual([]);
  });

  it('hopTally gives the median of each request over runs', () => {
    const tally = hopTally();
    const later = run.map((x) => (x.nodeId === 'rec' ? { ...x, startMs: 24.6 } : x));
    tally.note(run);
    tally.note(later);
    tally.note(later);
    const rec = tally.summary().find((h) => h.node === 'rec')!;
    expect(rec.dispatch_ms).toBeCloseTo(1.6);
    expect(rec.overhead_ms).toBeCloseTo(61 - 24.6 - 34.5);
  });
});
