import type { ConditionNode, GraphDoc, GraphNode, NodeTiming, Tensor } from '@ensemble-studio/core';
import type { CancelSignal } from './cancel.ts';
import { abortError, messageOf, ModelError } from './errors.ts';
import type { GraphIndex } from './graphIndex.ts';
import {
  conditionExit,
  nodeFailure,
  type RunFailure,
  type RunState,
  schedulerResult,
  skipReasonOf,
} from './runOutcome.ts';
import type { RunEvents } from './runEvents.ts';
import type { ExitInfo, SchedulerResult } from './schedulerTypes.ts';

/**
 * Where one scheduled run stands: the nodes it has started, the outputs, timings and partial responses it has
 * gathered, and what stopped it (a failure, a condition's exit, a cancellation). The scheduler moves tensors
 * between nodes; the ledger decides whether more may start and what the run comes to.
 * @example
 * const ledger = new RunLedger(graph, idx, signal, events, undefined);
 * ledger.failed(node, new Error('boom')); // ledger.open === false
 * ledger.result(); // { status: 'failed', error: { code: 'node-failed', … } }
 */
export class RunLedger implements RunState {
  readonly executed = new Set<string>();
  readonly outputs: Record<string, Tensor> = {};
  readonly timings: NodeTiming[] = [];
  partials = 0;
  /** Nodes that finished having sent no response (a decoupled model's choice). */
  silentNodes = 0;
  failure: RunFailure | undefined;
  exit: ExitInfo | undefined;
  /** Responses counted per node that answered more than once (made on first use: most runs have none). */
  private counters: Map<string, number> | undefined;
  private stopped = false;

  constructor(
    readonly graph: GraphDoc,
    readonly idx: GraphIndex,
    readonly signal: CancelSignal,
    private readonly events: RunEvents,
    readonly requestId: string | undefined,
  ) {}

  /** Whether new nodes may still start: nothing stopped the run and it was not cancelled. */
  get open(): boolean {
    return !this.stopped && !this.signal.aborted;
  }

  /** The iteration of a node's next response, for a node that answers more than once. */
  nextIteration(nodeId: string): number {
    this.counters ??= new Map();
    const c = this.counters.get(nodeId) ?? 0;
    this.counters.set(nodeId, c + 1);
    return c;
  }

  /** Whether a node has already streamed responses (so finishing with none is not silence). */
  hasStreamed(nodeId: string): boolean {
    return this.counters?.has(nodeId) === true;
  }

  /** A condition held: the first exit taken is the run's. */
  onExit(node: ConditionNode, value: number | boolean): void {
    if (this.exit) return;
    const { exit, stops, failure } = conditionExit(this.graph, node, value);
    this.exit = exit;
    // gate: nothing more flows past the gate (it sent no response); bls/error: the request ends here.
    if (stops) this.stopped = true;
    this.failure ??= failure;
  }

  /** A node failed: its event goes out, nothing more starts, and the first failure is the run's. */
  failed(node: GraphNode, err: unknown): void {
    const aborted = this.signal.aborted;
    const message = aborted ? abortError(this.signal).message : messageOf(err);
    this.events.failed(node.id, message, err instanceof ModelError ? err.traceback : undefined);
    this.stopped = true;
    if (aborted || this.failure) return;
    this.failure = nodeFailure(this.graph, node, err, message, this.requestId);
  }

  /** With nothing left in flight: the nodes that never ran are reported skipped, and the run's result. */
  result(): SchedulerResult {
    const reason = skipReasonOf(this.signal, this.failure, this.exit);
    if (reason) for (const id of this.idx.nodes.keys()) if (!this.executed.has(id)) this.events.skipped(id, reason);
    return schedulerResult(this);
  }
}
