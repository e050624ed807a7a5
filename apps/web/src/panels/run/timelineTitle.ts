import type { NodeTiming } from '@ensemble-studio/core';

/**
 * A timeline row's tooltip: queue and compute, batch, instance, where an op ran (`placement`) or whether a model's
 * request was run by the worker of the model before it (`hosted`), and a model request's phases.
 * @example timelineTitle({ nodeId: 'rec', queueMs: 0, computeMs: 24, instance: 'rec_0', hosted: true, … })
 * // "rec: queued 0.0 ms, computed 24.0 ms on rec_0 (run by the worker of the model before it)"
 */
export function timelineTitle(t: NodeTiming): string {
  const batch = t.batchSize ? ` in a batch of ${t.batchSize}` : '';
  const instance = t.instance ? ` on ${t.instance}` : '';
  const where = t.placement ? ` (${t.placement})` : t.hosted ? ' (run by the worker of the model before it)' : '';
  return `${t.nodeId}: queued ${t.queueMs.toFixed(1)} ms, computed ${t.computeMs.toFixed(1)} ms${batch}${instance}${where}${phases(t)}`;
}

/**
 * A model request's phases, when its backend stamped them: from its instance taking it to the model's own run, the
 * run, and the result's way back to the server's thread.
 * @example phases({ computeStartMs: 1, inferStartMs: 1.3, inferEndMs: 3.4, endMs: 3.8, … }) // "; to the model 0.3 ms, …"
 */
function phases(t: NodeTiming): string {
  if (t.computeStartMs === undefined || t.inferStartMs === undefined || t.inferEndMs === undefined) return '';
  const ms = (a: number, b: number) => `${Math.max(0, b - a).toFixed(1)} ms`;
  return `; to the model ${ms(t.computeStartMs, t.inferStartMs)}, its own run ${ms(t.inferStartMs, t.inferEndMs)}, back ${ms(t.inferEndMs, t.endMs)}`;
}
