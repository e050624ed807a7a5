import type { ConditionNode, GraphNode, NodeTiming, Tensor } from '@ensemble-studio/core';
import { abortError, messageOf, ModelError } from './errors.ts';
import { memberSpans, type FusedGroup } from './fusion.ts';
import { indexGraph, withoutOmittedInputs, type GraphIndex } from './graphIndex.ts';
import { PortJoin } from './portJoin.ts';
import { conditionExit, nodeFailure, type RunFailure, schedulerResult, skipReasonOf } from './runOutcome.ts';
import type { ExecContext, ExitInfo, NodeRun, SchedulerOptions, SchedulerResult } from './schedulerTypes.ts';
import { ResponseCollector } from './responses.ts';
import { RunEvents } from './runEvents.ts';
import { TensorRefs } from './tensorRefs.ts';

/**
 * The ensemble scheduler, as Triton's: a node runs as soon as all its connected inputs exist
 * (per iteration: each response of a decoupled node is its own iteration), independent branches
 * run concurrently, tensors pass by reference. A failure or a bls/error exit stops scheduling; a
 * gate exit starves the nodes behind it. Nodes that never ran are reported skipped with the reason.
 */
export class Scheduler {
  private readonly idx: GraphIndex;
  private readonly now: () => number;
  private readonly events: RunEvents;
  /** Inputs gathered for nodes of several ports (made on first use, as `counters`: most runs of a stream need neither). */
  private pending: PortJoin | undefined;
  private refs = new TensorRefs();
  private executed = new Set<string>();
  private counters: Map<string, number> | undefined;
  private outputs: Record<string, Tensor> = {};
  /** The graph's responses, when they are streamed (`onResponse`). */
  private readonly responses: ResponseCollector | undefined;
  private timings: NodeTiming[] = [];
  private inflight = 0;
  private partials = 0;
  /** Nodes that finished having sent no response (a decoupled model's choice). */
  private silentNodes = 0;
  private stopped = false;
  private failure: RunFailure | undefined;
  private exit: ExitInfo | undefined;
  private done!: (r: SchedulerResult) => void;
  private readonly ctx: ExecContext;

  constructor(private readonly o: SchedulerOptions) {
    this.idx = withoutOmittedInputs(o.index ?? indexGraph(o.graph), o.inputs);
    this.now = o.now ?? perfNow;
    this.events = new RunEvents(o.emit, o.runId, o.observed ?? true, this.now());
    this.responses = o.onResponse ? new ResponseCollector(this.idx.outputs.length, o.onResponse) : undefined;
    this.ctx = {
      signal: o.signal,
      canTransfer: this.refs.canTransfer,
      observed: this.events.observed,
      respond: (node, outputs) => this.streamed(node, outputs),
      log: (node, l) => this.events.log(node.id, l),
    };
  }

  /** Runs the graph to the end; never rejects. */
  run(): Promise<SchedulerResult> {
    const result = new Promise<SchedulerResult>((r) => {
      this.done = r;
    });
    for (const node of this.idx.nodes.values()) {
      if (node.kind === 'input') {
        const t = this.o.inputs[node.params.name];
        this.executed.add(node.id);
        if (t) this.finishNode(node, 0, { responses: [{ out: t }] }, this.now(), {});
      } else if (this.idx.inPorts.get(node.id)!.size === 0) {
        this.launch(node, 0, {});
      }
    }
    this.maybeFinish();
    return result;
  }

  private deliver(nodeId: string, iteration: number, port: string, t: Tensor): void {
    const node = this.idx.nodes.get(nodeId)!;
    if (node.kind === 'output') {
      this.outputs[node.params.name] = t;
      this.executed.add(node.id);
      this.responses?.add(iteration, node.params.name, t);
      return;
    }
    const ports = this.idx.inPorts.get(nodeId)!.size;
    if (ports === 1) {
      if (!this.stopped && !this.o.signal.aborted) this.launch(node, iteration, { [port]: t });
      return;
    }
    this.pending ??= new PortJoin();
    const got = this.pending.add(nodeId, iteration, port, t, ports);
    if (got && !this.stopped && !this.o.signal.aborted) {
      this.pending.take(nodeId, iteration);
      this.launch(node, iteration, Object.fromEntries(got));
    }
  }

  private launch(node: GraphNode, iteration: number, inputs: Record<string, Tensor>): void {
    this.executed.add(node.id);
    const startedAt = this.now();
    this.events.started(node.id, startedAt);
    const group = this.o.groups?.get(node.id);
    if (group && this.o.executor.executeGroup) {
      this.launchGroup(group, iteration, inputs, startedAt);
      return;
    }
    if (node.kind === 'router') {
      const t = inputs.in!;
      const responses = [Object.fromEntries(Array.from({ length: node.params.count }, (_, i) => [`out_${i}`, t]))];
      this.finishNode(node, iteration, { responses, queueMs: 0, computeMs: 0 }, startedAt, inputs);
      return;
    }
    // The common path, with two closures rather than `track`'s five: every chunk of a stream runs each node once.
    this.inflight++;
    let p: Promise<NodeRun>;
    try {
      p = this.o.executor.execute(node, inputs, this.ctx);
    } catch (err) {
      p = Promise.reject(err);
    }
    p.then(
      (r) => {
        try {
          this.finishNode(node, iteration, r, startedAt, inputs);
        } finally {
          this.settled();
        }
      },
      (err: unknown) => {
        try {
          this.failNode(node, err, inputs);
        } finally {
          this.settled();
        }
      },
    );
  }

  /** Runs `work`, counting it in flight until it settles, then checks whether the run is over. */
  private track<T>(work: () => Promise<T>, done: (r: T) => void, failed: (err: unknown) => void): void {
    this.inflight++;
    let p: Promise<T>;
    try {
      p = work();
    } catch (err) {
      p = Promise.reject(err);
    }
    p.then(
      (r) => {
        try {
          done(r);
        } finally {
          this.settled();
        }
      },
      (err: unknown) => {
        try {
          failed(err);
        } finally {
          this.settled();
        }
      },
    );
  }

  private settled(): void {
    this.inflight--;
    this.maybeFinish();
  }

  /**
   * A fused group: one request for all its members. Each member that ran is finished in order, its
   * span rebuilt from the compute times measured in the worker (the first one's also holds the queue
   * and the thread hops). A failure is the failing member's; the members after it are skipped.
   */
  private launchGroup(group: FusedGroup, iteration: number, inputs: Record<string, Tensor>, startedAt: number): void {
    const { members } = group;
    const model = members.find((m) => m.kind === 'model')!;
    const onFailure = (err: unknown): void => {
      // Nothing ran (the instance crashed, the run was cancelled, the model is unavailable): the model's failure.
      if (model !== members[0]) {
        this.executed.delete(members[0]!.id);
        this.startMember(model, this.now());
      }
      this.failNode(model, err, inputs);
    };
    this.track(
      () => this.o.executor.executeGroup!(group, inputs, this.ctx),
      (g) => {
        const endedAt = this.now();
        const spans = memberSpans(
          startedAt,
          endedAt,
          g.runs.map((r) => r.computeMs ?? 0),
        );
        g.runs.forEach((r, k) => {
          if (k > 0) this.startMember(members[k]!, spans[k]!.start);
          this.finishNode(
            members[k]!,
            iteration,
            k === 0 ? { ...r, queueMs: g.queueMs } : r,
            spans[k]!.start,
            k === 0 ? inputs : {},
            spans[k]!.end,
            members,
          );
        });
        if (g.failure === undefined) return;
        if (g.runs.length > 0) this.startMember(members[g.runs.length]!, endedAt);
        this.failNode(members[g.runs.length]!, g.failure, g.runs.length === 0 ? inputs : {});
      },
      onFailure,
    );
  }

  private startMember(node: GraphNode, at: number): void {
    this.executed.add(node.id);
    this.events.started(node.id, at);
  }

  private finishNode(
    node: GraphNode,
    iteration: number,
    r: NodeRun,
    startedAt: number,
    inputs: Record<string, Tensor>,
    endedAt = this.now(),
    group?: readonly GraphNode[],
  ): void {
    this.refs.release(inputs);
    const timing = this.events.finished(node.id, r, startedAt, endedAt);
    if (node.kind !== 'input') this.timings.push(timing);
    if (r.exit && node.kind === 'condition') this.onExit(node, r.exit.value);
    if (r.responses.length === 0 && !r.exit && !this.counters?.has(node.id)) this.silentNodes++;
    const multi = r.responses.length !== 1;
    if (multi) this.partials += r.responses.length;
    for (let k = 0; k < r.responses.length; k++) {
      const resp = r.responses[k]!;
      if (multi) this.events.partial(node.id, k, resp);
      const iter = multi ? this.nextIteration(node.id) : iteration;
      this.publish(node.id, iter, resp, group);
    }
  }

  /** A decoupled node's response arriving while it still runs: published at once as a new iteration. */
  private streamed(node: GraphNode, resp: Record<string, Tensor>): void {
    if (this.stopped || this.o.signal.aborted) return;
    const k = this.nextIteration(node.id);
    this.partials++;
    this.events.partial(node.id, k, resp);
    this.publish(node.id, k, resp);
  }

  private nextIteration(nodeId: string): number {
    this.counters ??= new Map();
    const c = this.counters.get(nodeId) ?? 0;
    this.counters.set(nodeId, c + 1);
    return c;
  }

  /** Sends `resp` along the node's edges; a fused member's tensors reach the other members in the worker, not here. */
  private publish(nodeId: string, iteration: number, resp: Record<string, Tensor>, group?: readonly GraphNode[]): void {
    const out = this.idx.out.get(nodeId)!;
    // Every consumer is counted before any runs: `canTransfer` must see all the readers of a buffer.
    for (const port in resp) {
      const t = resp[port];
      const edges = out.get(port);
      if (!t || !edges) continue;
      let n = 0;
      for (const e of edges) if (!inGroup(group, e.target)) n++;
      this.refs.add(t, n);
    }
    for (const port in resp) {
      const t = resp[port];
      const edges = out.get(port);
      if (t && edges)
        for (const e of edges) if (!inGroup(group, e.target)) this.deliver(e.target, iteration, e.targetPort, t);
    }
  }

  private onExit(node: ConditionNode, value: number | boolean): void {
    if (this.exit) return;
    const { exit, stops, failure } = conditionExit(this.o.graph, node, value);
    this.exit = exit;
    // gate: nothing more flows past the gate (it sent no response); bls/error: the request ends here.
    if (stops) this.stopped = true;
    this.failure ??= failure;
  }

  private failNode(node: GraphNode, err: unknown, inputs: Record<string, Tensor>): void {
    this.refs.release(inputs);
    const aborted = this.o.signal.aborted;
    const message = aborted ? abortError(this.o.signal).message : messageOf(err);
    this.events.failed(node.id, message, err instanceof ModelError ? err.traceback : undefined);
    this.stopped = true;
    if (aborted || this.failure) return;
    this.failure = nodeFailure(this.o.graph, node, err, message);
  }

  private maybeFinish(): void {
    if (this.inflight > 0) return;
    const reason = skipReasonOf(this.o.signal, this.failure, this.exit);
    if (reason) for (const id of this.idx.nodes.keys()) if (!this.executed.has(id)) this.events.skipped(id, reason);
    const result = this.result();
    if (result.status !== 'failed') this.responses?.flush();
    this.done(result);
  }

  private result(): SchedulerResult {
    const { graph, signal } = this.o;
    const { idx, failure, exit, outputs, timings, partials, silentNodes } = this;
    return schedulerResult({ graph, idx, signal, failure, exit, outputs, timings, partials, silentNodes });
  }
}

const perfNow = (): number => performance.now();

function inGroup(group: readonly GraphNode[] | undefined, id: string): boolean {
  if (group) for (const m of group) if (m.id === id) return true;
  return false;
}
