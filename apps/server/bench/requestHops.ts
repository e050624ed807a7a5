// Where a run's time goes between compute: for each model node's request (the model and the ops fused into its
// worker), how long it took beyond its stages' compute, and how long the main thread took to send it after the
// node before it had finished. Read from the run's own timings (`NodeTiming`), so it costs the engine nothing.
import type { NodeTiming } from '@ensemble-studio/core';
import { median } from './stats.ts';

/** One model request of a run: its span beyond compute, and the gap before it was sent. */
export interface RequestHop {
  /** The model node whose worker served the request. */
  node: string;
  /** The request's span (first member's start to last member's end) less its members' compute, ms. */
  overheadMs: number;
  /** From the end of the latest model request that had finished by then to this one's start: the main thread's turn
   * between a reply and the request it lets go (0 when none had finished). */
  dispatchMs: number;
}

/**
 * The model requests of one run, in start order: `node`'s own timing plus every op that ran `fused:<node>`.
 * @example requestHops(run.timings) // [{ node: 'det', overheadMs: 1.1, dispatchMs: 0 }, { node: 'rec', … }]
 */
export function requestHops(timings: readonly NodeTiming[]): RequestHop[] {
  const groups = new Map<string, NodeTiming[]>();
  for (const t of timings) {
    // Op nodes always say where they ran; a model node names only its instance.
    const owner = t.placement?.startsWith('fused:')
      ? t.placement.slice(6)
      : t.placement
        ? ''
        : t.instance
          ? t.nodeId
          : '';
    if (owner) (groups.get(owner) ?? groups.set(owner, []).get(owner)!).push(t);
  }
  const hops: (RequestHop & { start: number; end: number })[] = [];
  for (const [node, members] of groups) {
    if (!members.some((m) => m.nodeId === node)) continue; // ops fused into a node that did not report
    const start = Math.min(...members.map((m) => m.startMs));
    const end = Math.max(...members.map((m) => m.endMs));
    const compute = members.reduce((n, m) => n + m.computeMs, 0);
    hops.push({ node, start, end, overheadMs: end - start - compute, dispatchMs: 0 });
  }
  for (const h of hops) {
    const before = hops.filter((o) => o !== h && o.end <= h.start).map((o) => o.end);
    if (before.length > 0) h.dispatchMs = h.start - Math.max(...before);
  }
  return hops
    .sort((a, b) => a.start - b.start)
    .map(({ node, overheadMs, dispatchMs }) => ({ node, overheadMs, dispatchMs }));
}

/** Collects `requestHops` over runs; `summary()` gives each request's median overhead and dispatch gap. */
export function hopTally(): {
  note(timings: readonly NodeTiming[]): void;
  summary(): { node: string; overhead_ms: number; dispatch_ms: number }[];
} {
  const seen = new Map<string, { overhead: number[]; dispatch: number[] }>();
  return {
    note: (timings) => {
      for (const h of requestHops(timings)) {
        const s = seen.get(h.node) ?? seen.set(h.node, { overhead: [], dispatch: [] }).get(h.node)!;
        s.overhead.push(h.overheadMs);
        s.dispatch.push(h.dispatchMs);
      }
    },
    summary: () =>
      [...seen].map(([node, s]) => ({ node, overhead_ms: median(s.overhead), dispatch_ms: median(s.dispatch) })),
  };
}
