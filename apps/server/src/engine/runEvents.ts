// A run's node events for whoever watches it (the run panel, the server's listeners). Started, finished and
// partial events, with the output summaries they carry, are built only when someone watches; failures and
// skips always go out (the run's outcome depends on them).
import type { NodeTiming, ServerMessage, SkipReason, Tensor, TensorSummary } from '@ensemble-studio/core';
import type { ExecContext, NodeRun } from './schedulerTypes.ts';
import { summarizeTensor } from './tensorSummary.ts';
import { perfMsOfNs } from './monotonicClock.ts';

type LogLine = Parameters<ExecContext['log']>[1];

/** The events of one run; times are given on the scheduler's clock and sent relative to the run's start (`t0`). */
export class RunEvents {
  constructor(
    private readonly emit: (m: ServerMessage) => void,
    private readonly runId: string,
    /** Someone listens: node events and their summaries are worth building. */
    readonly observed: boolean,
    /** When the run started, on the scheduler's clock. */
    readonly t0: number,
  ) {}

  started(nodeId: string, at: number): void {
    if (this.observed) this.emit({ type: 'node.started', runId: this.runId, nodeId, atMs: at - this.t0 });
  }

  /** A node's timing (also kept in the run's result) and, when watched, its `node.finished` event. */
  finished(nodeId: string, r: NodeRun, startedAt: number, endedAt: number): NodeTiming {
    const timing: NodeTiming = {
      nodeId,
      queueMs: r.queueMs ?? 0,
      computeMs: r.computeMs ?? endedAt - startedAt,
      startMs: startedAt - this.t0,
      endMs: endedAt - this.t0,
      batchSize: r.batchSize,
      instance: r.instance,
    };
    if (r.placement) timing.placement = r.placement;
    if (r.wokeAhead !== undefined) timing.wokeAhead = r.wokeAhead;
    if (r.spunAhead !== undefined) timing.spunAhead = r.spunAhead;
    if (r.hosted !== undefined) timing.hosted = r.hosted;
    if (r.startNs !== undefined) timing.computeStartMs = perfMsOfNs(r.startNs) - this.t0;
    if (r.inferStartNs !== undefined) timing.inferStartMs = perfMsOfNs(r.inferStartNs) - this.t0;
    if (r.inferEndNs !== undefined) timing.inferEndMs = perfMsOfNs(r.inferEndNs) - this.t0;
    if (this.observed)
      this.emit({
        type: 'node.finished',
        runId: this.runId,
        nodeId,
        timing,
        outputs: r.summaries ?? summaries(r.responses[0] ?? {}),
      });
    return timing;
  }

  /** One response of a node that answers more than once (a decoupled model). */
  partial(nodeId: string, index: number, resp: Record<string, Tensor>): void {
    if (this.observed) this.emit({ type: 'run.partial', runId: this.runId, nodeId, index, outputs: summaries(resp) });
  }

  failed(nodeId: string, message: string, traceback: string | undefined): void {
    this.emit({ type: 'node.failed', runId: this.runId, nodeId, message, ...(traceback ? { traceback } : {}) });
  }

  skipped(nodeId: string, reason: SkipReason): void {
    this.emit({ type: 'node.skipped', runId: this.runId, nodeId, reason });
  }

  log(nodeId: string, l: LogLine): void {
    if (this.observed) this.emit({ type: 'run.log', runId: this.runId, nodeId, ...l });
  }
}

function summaries(resp: Record<string, Tensor>): Record<string, TensorSummary> {
  return Object.fromEntries(Object.entries(resp).map(([k, t]) => [k, summarizeTensor(t)]));
}
