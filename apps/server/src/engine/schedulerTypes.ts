import type {
  ConditionNode,
  GraphDoc,
  GraphNode,
  NodeTiming,
  ServerMessage,
  Tensor,
  TensorSummary,
} from '@ensemble-studio/core';
import type { ComputeStamps } from './computeStamps.ts';
import type { CancelSignal } from './cancel.ts';
import type { FusedGroup } from './fusion.ts';
import type { GraphIndex } from './graphIndex.ts';
import type { StepInputs } from './omittedInputs.ts';

// The scheduler's contracts: what it hands a node executor, and what a run comes to.

/** What executing one node produced: zero or more responses (decoupled), and whether a condition held. */
/** A node's result; a model request's carries its compute stamps. */
export interface NodeRun extends ComputeStamps {
  responses: Record<string, Tensor>[];
  /** Set by a condition whose expression held. */
  exit?: { value: number | boolean };
  queueMs?: number;
  computeMs?: number;
  batchSize?: number;
  instance?: string;
  /** Output summaries made where the outputs are (a fused member's outputs never reach this thread). */
  summaries?: Record<string, TensorSummary>;
  /** Where an op ran (placement.ts). */
  placement?: NodeTiming['placement'];
  /** A model's fused request with steps after its session: whether its worker woke this thread ahead (Placer.wakeAhead). */
  wokeAhead?: boolean;
  /** A run's first fused request of a model: whether its worker was polling for it (Placer.spinAhead). */
  spunAhead?: boolean;
  /** A fused request a host was decided for (hostAhead.ts): whether the worker of the request before it ran it. */
  hosted?: boolean;
}

/** What a fused group did: a run per member that finished, in order, then the failure that stopped it, if any. */
export interface GroupRun {
  runs: NodeRun[];
  failure?: unknown;
  queueMs: number;
  /**
   * When its request really began (`performance.now()` ms), where that was before the scheduler launched it: a
   * request hosted by its producer's worker begins before this thread has its producer's reply.
   */
  startedAt?: number;
}

export interface ExecContext {
  signal: CancelSignal;
  /**
   * Asked once per input as it is handed to a worker (moved or copied; the node reads it on this thread no more):
   * whether `t`'s buffer may move there, no one else holding it. Each answer lets go of the node's hold on it.
   */
  canTransfer(t: Tensor): boolean;
  /** Someone watches the run's events, so node outputs get summarised (stats, previews, thumbnails). */
  observed: boolean;
  /**
   * A decoupled node's response, as it arrives: it flows downstream at once as its own iteration. `final`: the
   * model sent it with the FINAL flag, so the node sends nothing after it.
   */
  respond(node: GraphNode, outputs: Record<string, Tensor>, final: boolean): void;
  /** A line a node's model logged while running for this run. */
  log(
    node: GraphNode,
    line: { model: string; instance: string; level: 'info' | 'warn' | 'error' | 'verbose'; message: string },
  ): void;
}

/** Runs model, op and condition nodes (routers, inputs and outputs are the scheduler's own). */
export interface NodeExecutor {
  execute(node: GraphNode, inputs: Record<string, Tensor>, ctx: ExecContext): Promise<NodeRun>;
  /** Runs a fused group (fusion.ts) as one request; rejects only when no member could run at all. */
  executeGroup?(group: FusedGroup, inputs: Record<string, Tensor>, ctx: ExecContext): Promise<GroupRun>;
  /** The inputs of the model a node's step requests (asked only when an input of it was left out upstream). */
  stepInputs?(node: GraphNode): StepInputs | undefined;
}

export interface ExitInfo {
  conditionId: string;
  expression: string;
  value: number | boolean;
  strategy: ConditionNode['params']['strategy'];
  message?: string;
}

export interface SchedulerResult {
  status: 'completed' | 'exited_early' | 'failed';
  outputs: Record<string, Tensor>;
  timings: NodeTiming[];
  /** Responses of decoupled nodes beyond the one-per-request (each was a partial result). */
  partials: number;
  exit?: ExitInfo;
  error?: { code: string; message: string; nodeId?: string };
}

export interface SchedulerOptions {
  runId: string;
  /** The id of the request the run serves (KServe's `id`): Triton's step and deadlock messages name it. */
  requestId?: string;
  graph: GraphDoc;
  /** `indexGraph(graph)`, shared by every run of the graph (the engine keeps one per graph); built when absent. */
  index?: GraphIndex;
  inputs: Record<string, Tensor>;
  executor: NodeExecutor;
  signal: CancelSignal;
  emit: (m: ServerMessage) => void;
  /** False when nobody listens: node events (and the output summaries they carry) are not built. */
  observed?: boolean;
  /**
   * The graph's outputs the request asks for (Triton's requested outputs; absent or empty: all). Only the nodes that
   * feed them run, and a streamed response waits for them alone (requestedOutputs.ts).
   */
  requestedOutputs?: readonly string[];
  /** Fused groups by first member (fusion.ts); each runs through `executor.executeGroup`. */
  groups?: Map<string, FusedGroup>;
  /**
   * Each complete iteration of the graph's outputs, as it is produced (a decoupled graph's responses). `final`: no
   * node is left to run, so nothing follows (Triton's ensemble sets FINAL on such a response).
   */
  onResponse?: (outputs: Record<string, Tensor>, final: boolean) => void;
  now?: () => number;
  /** When the run began on the scheduler's clock, where that was before it was built (firstRequests.ts); now when absent. */
  startedAt?: number;
}
