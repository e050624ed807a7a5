import type { GraphNode, Tensor } from '@ensemble-studio/core';
import { inGroup, memberSpans, type FusedGroup } from './fusion.ts';
import { feedsOnlyOutputs, indexGraph, type GraphIndex } from './graphIndex.ts';
import { OMITTED, OMITTED_INPUT, withoutPlaceholders } from './omittedInputs.ts';
import { PortJoin } from './portJoin.ts';
import { groupsOf, requestedIndex } from './requestedOutputs.ts';
import { RunLedger } from './RunLedger.ts';
import type { ExecContext, NodeRun, SchedulerOptions, SchedulerResult } from './schedulerTypes.ts';
import { ResponseCollector } from './responses.ts';
import { runContext } from './runContext.ts';
import { RunEvents } from './runEvents.ts';
import { TensorRefs } from './tensorRefs.ts';

/**
 * The ensemble scheduler, as Triton's: a node runs as soon as all its connected inputs exist (per iteration: each
 * response of a decoupled node is its own iteration), independent branches run concurrently, tensors pass by
 * reference. An output a response left out, or an optional input the request left out, travels as a placeholder
 * (`OMITTED`): the nodes it feeds run without it if the model's input count check allows. A failure or a bls/error
 * exit stops scheduling; a gate exit starves the nodes behind it. Nodes that never ran are reported skipped. A run
 * for some of the graph's outputs (`requestedOutputs`) runs only the nodes that feed them (requestedOutputs.ts).
 */
export class Scheduler {
  private readonly idx: GraphIndex;
  private readonly groups: Map<string, FusedGroup> | undefined;
  private readonly now: () => number;
  private readonly events: RunEvents;
  private readonly ledger: RunLedger;
  /** Inputs gathered for nodes of several ports (made on first use: most runs of a stream need none). */
  private pending: PortJoin | undefined;
  private readonly refs = new TensorRefs();
  /** The graph's responses, when they are streamed (`onResponse`). */
  private readonly responses: ResponseCollector | undefined;
  private inflight = 0;
  private done!: (r: SchedulerResult) => void;
  private readonly ctx: ExecContext;

  constructor(private readonly o: SchedulerOptions) {
    const full = o.index ?? indexGraph(o.graph);
    this.idx = requestedIndex(full, o.graph, o.requestedOutputs);
    this.groups = this.idx === full ? o.groups : groupsOf(o.groups, this.idx);
    this.now = o.now ?? perfNow;
    this.events = new RunEvents(o.emit, o.runId, o.observed ?? true, o.startedAt ?? this.now());
    this.ledger = new RunLedger(o.graph, this.idx, o.signal, this.events, o.requestId);
    this.responses = o.onResponse ? new ResponseCollector(this.idx.outputs.length, o.onResponse) : undefined;
    this.ctx = runContext(o.signal, this.refs, this.events, this);
  }

  /** When the run started (`performance.now()` unless the clock is injected); node timings count from it. */
  get startedAtMs(): number {
    return this.events.t0;
  }

  /** Runs the graph to the end; never rejects. */
  run(): Promise<SchedulerResult> {
    const result = new Promise<SchedulerResult>((r) => {
      this.done = r;
    });
    for (const node of this.idx.nodes.values()) {
      if (node.kind === 'input') {
        const t = this.o.inputs[node.params.name];
        this.ledger.executed.add(node.id);
        if (t) this.finishNode(node, 0, { responses: [{ out: t }] }, this.now(), {});
        else this.publish(node.id, 0, OMITTED_INPUT);
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
      if (t !== OMITTED) this.ledger.outputs[node.params.name] = t;
      this.ledger.executed.add(node.id);
      this.responses?.add(iteration, node.params.name, t);
      return;
    }
    const ports = this.idx.inPorts.get(nodeId)!.size;
    if (ports === 1) {
      if (!this.ledger.open) return;
      if (t !== OMITTED) this.launch(node, iteration, { [port]: t });
      else this.launchChecked(node, iteration, [[port, t]]);
      return;
    }
    this.pending ??= new PortJoin();
    const got = this.pending.add(nodeId, iteration, port, t, ports);
    if (got && this.ledger.open) {
      this.pending.take(nodeId, iteration);
      this.launchChecked(node, iteration, got);
    }
  }

  /** Launches `node` with the gathered inputs less their placeholders, unless the model's input check refuses. */
  private launchChecked(node: GraphNode, iteration: number, got: Iterable<[string, Tensor]>): void {
    const inputs = withoutPlaceholders(got, node, this.o.executor);
    if (!(inputs instanceof Error)) return this.launch(node, iteration, inputs);
    this.startMember(node, this.now());
    this.failNode(node, inputs, {});
  }

  private launch(node: GraphNode, iteration: number, inputs: Record<string, Tensor>): void {
    this.ledger.executed.add(node.id);
    const startedAt = this.now();
    this.events.started(node.id, startedAt);
    const group = this.groups?.get(node.id);
    if (group && this.o.executor.executeGroup) {
      this.launchGroup(group, iteration, inputs, startedAt);
      return;
    }
    if (node.kind === 'router') {
      const t = inputs.in ?? OMITTED; // a direct router passes a placeholder on, as Triton maps its tensor
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
        this.ledger.executed.delete(members[0]!.id);
        this.startMember(model, this.now());
      }
      this.failNode(model, err, inputs);
    };
    this.track(
      () => this.o.executor.executeGroup!(group, inputs, this.ctx),
      (g) => {
        const endedAt = this.now();
        const spans = memberSpans(
          g.startedAt !== undefined && g.startedAt < startedAt ? g.startedAt : startedAt,
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
    this.ledger.executed.add(node.id);
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
    const ledger = this.ledger;
    if (node.kind !== 'input') ledger.timings.push(timing);
    if (r.exit && node.kind === 'condition') ledger.onExit(node, r.exit.value);
    if (r.responses.length === 0 && !r.exit && !ledger.hasStreamed(node.id)) ledger.silentNodes++;
    const multi = r.responses.length !== 1;
    if (multi) ledger.partials += r.responses.length;
    for (let k = 0; k < r.responses.length; k++) {
      const resp = r.responses[k]!;
      if (multi) this.events.partial(node.id, k, resp);
      const iter = multi ? ledger.nextIteration(node.id) : iteration;
      this.publish(node.id, iter, resp, group);
    }
  }

  /**
   * A decoupled node's response arriving while it still runs: published at once as a new iteration. The model's
   * FINAL response is the run's last when this node is the only one running, nothing waits for a port, and it
   * feeds only the graph's outputs: the graph's response it completes is then final, as Triton's ensemble marks it.
   */
  streamed(node: GraphNode, resp: Record<string, Tensor>, final: boolean): void {
    if (!this.ledger.open) return;
    const k = this.ledger.nextIteration(node.id);
    this.ledger.partials++;
    this.events.partial(node.id, k, resp);
    const last = final && this.inflight === 1 && !this.pending?.holding && feedsOnlyOutputs(this.idx, node.id);
    this.responses?.markFinal(last);
    this.publish(node.id, k, resp);
    this.responses?.markFinal(false);
  }

  /** Sends `resp` along the node's edges; a fused member's tensors reach the other members in the worker, not here. */
  private publish(nodeId: string, iteration: number, resp: Record<string, Tensor>, group?: readonly GraphNode[]): void {
    const out = this.idx.out.get(nodeId)!;
    let sent = 0;
    // Every consumer is counted before any runs: `canTransfer` must see all the readers of a buffer.
    for (const port in resp) {
      const t = resp[port];
      const edges = out.get(port);
      if (!t || !edges) continue;
      sent++;
      if (t === OMITTED) continue;
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
    // A port the response left out (a Python model's may): a placeholder, as Triton's ensemble puts one. A fused
    // member's response holds only what leaves the group, and its members always make every output.
    if (sent < out.size && !group)
      for (const [port, edges] of out)
        if (!resp[port]) for (const e of edges) this.deliver(e.target, iteration, e.targetPort, OMITTED);
  }

  private failNode(node: GraphNode, err: unknown, inputs: Record<string, Tensor>): void {
    this.refs.release(inputs);
    this.ledger.failed(node, err);
  }

  private maybeFinish(): void {
    if (this.inflight > 0) return;
    const result = this.ledger.result();
    if (result.status !== 'failed') this.responses?.flush();
    this.done(result);
  }
}

const perfNow = (): number => performance.now();
