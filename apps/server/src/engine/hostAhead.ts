// A run that has the engine to itself may have the worker of a fused request run the request that reads its outputs
// next, on its own copy of that reader's model, once its chain has run to its end (Placer.hostAhead): the reader's
// request then needs neither the producer's reply to reach the main thread, nor the main thread's turn on it, nor a
// hop to the reader's own worker (engine README, "The next request run by the worker before it"). It is registered,
// pinned to an idle instance of the reader's (which it occupies while it runs), right after its producer's is posted;
// the main thread still gets the producer's reply and schedules the graph as before, and finds the request running.
import type { GraphNode, Tensor } from '@ensemble-studio/core';
import { OnnxBackend } from './backends/onnx/OnnxBackend.ts';
import type { HostNext } from './backends/onnx/workerProtocol.ts';
import type { CancelSignal } from './cancel.ts';
import { chainComputeMs, chainSteps } from './chainSteps.ts';
import type { FusedGroup } from './fusion.ts';
import type { GraphIndex } from './graphIndex.ts';
import type { ModelRuntime } from './ModelRuntime.ts';
import type { ChainResult } from './modelRuntimeTypes.ts';
import type { Placer } from './placement.ts';
import { afterTurn } from './afterTurn.ts';

/** A node all of whose inputs one node's outputs feed (through routers too): its input port ← that node's output port. */
interface Reader {
  id: string;
  feeds: Record<string, string>;
}

const readersMemo = new WeakMap<GraphIndex, Map<string, Reader[]>>();

/** The nodes that read only `source`'s outputs, directly or through routers (which pass their input on). */
export function readersOf(idx: GraphIndex, source: string): Reader[] {
  let byNode = readersMemo.get(idx);
  if (!byNode) readersMemo.set(idx, (byNode = new Map()));
  const known = byNode.get(source);
  if (known) return known;
  const feeds = new Map<string, Record<string, string>>();
  const visit = (node: string, from: string | undefined): void => {
    for (const [port, edges] of idx.out.get(node) ?? [])
      for (const e of edges) {
        const target = idx.nodes.get(e.target);
        if (target?.kind === 'router') visit(target.id, from ?? port);
        else feeds.set(e.target, { ...feeds.get(e.target), [e.targetPort]: from ?? port });
      }
  };
  visit(source, undefined);
  const found = [...feeds]
    .filter(([id, f]) => idx.inPorts.get(id)?.size === Object.keys(f).length)
    .map(([id, f]) => ({ id, feeds: f }));
  byNode.set(source, found);
  return found;
}

/** What a run shares with its hosts: the graph, this run's fused groups, the models' runtimes and the placer. */
export interface HostDeps {
  index: GraphIndex;
  fused: Map<string, FusedGroup>;
  runtimes: Map<string, ModelRuntime>;
  placer: Placer;
  /** The graph's name, and the placer's key of a node of it (`nodeKey`). */
  graph: string;
  keyOf: (graph: string, node: GraphNode) => string;
}

/** What a producer's request carries when its worker runs the next one, and the consumer's registration after it. */
export interface Outgoing {
  pin: number;
  next: HostNext;
  /** Registers the consumer's request (the producer's worker runs it): right after the producer's post. */
  follow(signal: CancelSignal): void;
}

/** The consumer's request on its way: what the scheduler's launch of it takes over (`claim`). */
export interface Claimed {
  promise: Promise<ChainResult>;
  steps: ReturnType<typeof chainSteps>;
  wakeAhead: boolean;
}

interface Watched {
  key: string;
  producer: string;
  sent?: { claimed: Claimed; release: () => void };
  readyNs?: number;
  hosted?: boolean;
}

/** The reader a group's outputs may go straight to. */
interface Target {
  group: FusedGroup;
  model: GraphNode;
  rt: ModelRuntime;
  feeds: Record<string, string>;
}

/**
 * One run's hosted requests. Per producer group, at most one: the reader with the longest compute measured (the run's
 * critical branch; the others go through the main thread as before), decided by what each way measured
 * (`Placer.hostAhead`): from the producer's last step's end to the reader's reply here, less the reader's compute.
 * Its compute is left out because it moves by more between runs (±1–2 ms for OCR's rec on these VMs, with the vCPU it
 * lands on) than the choice changes, so a choice by the whole span flipped at random; hosted, it runs on the thread
 * and CPU that its producer's reply would have woken it on anyway (engine README, "The next request run by the worker
 * before it"). The reader's request travels inside the producer's, and the producer's worker runs it once the
 * producer ran to its end; the main thread registers it under an id kept for it, and fails it here when the producer
 * stopped short (an early exit, a failure).
 * @example const h = new RunHosts(deps); const out = h.plan(det, detRt, summarize); … h.produced(det, r); h.claim(rec, inputs, canTransfer)
 */
export class RunHosts {
  /** By producer group's first member. */
  private readonly byProducer = new Map<string, Watched>();
  /** By consumer group's first member. */
  private readonly byConsumer = new Map<string, Watched>();

  constructor(private readonly d: HostDeps) {}

  /** Before `group`'s request goes out: the request its worker runs next, and where both go; or undefined. */
  plan(group: FusedGroup, rt: ModelRuntime, summarize: boolean): Outgoing | undefined {
    const c = this.critical(group);
    if (!c) return undefined;
    const watched: Watched = {
      key: this.d.keyOf(this.d.graph, c.model),
      producer: this.d.keyOf(this.d.graph, modelOf(group)),
    };
    this.byProducer.set(group.members[0]!.id, watched);
    this.byConsumer.set(c.group.members[0]!.id, watched);
    // After a request of this producer that stopped short, the next goes through this thread (and is measured so).
    if (this.d.placer.stoppedShort.has(watched.producer) || !this.d.placer.hostAhead(watched.key)) return undefined;
    const link = hostLink(rt, c.rt);
    if (!link) return undefined;
    const steps = chainSteps(c.group, Object.keys(c.feeds));
    const wakeAhead = steps.modelStep < steps.steps.length - 1 && this.d.placer.wakeAhead(watched.key);
    const request: HostNext['request'] = { type: 'chain', id: link.id, feeds: {}, steps: steps.steps, summarize };
    if (wakeAhead) request.wakeAhead = true;
    return {
      pin: link.from,
      next: { guest: link.guest, feeds: c.feeds, request },
      follow: (signal) => {
        const promise = c.rt.runChain({
          feeds: {},
          ...steps,
          signal,
          wakeAhead,
          pin: link.to,
          viaHost: { id: link.id },
        });
        promise.catch(() => {}); // claimed, it is the consumer's; unclaimed (released, or the run stopped), nobody's
        watched.sent = { claimed: { promise, steps, wakeAhead }, release: link.release };
      },
    };
  }

  /** `group`'s request settled (`r` undefined: it failed): a consumer's request its worker does not run fails here. */
  produced(group: FusedGroup, r: ChainResult | undefined): void {
    const w = this.byProducer.get(group.members[0]!.id);
    if (!w) return;
    const last = r?.stages[r.stages.length - 1];
    if (last?.startNs !== undefined && last.exit === undefined) w.readyNs = last.startNs + last.computeNs;
    const short = !r || r.stages.length < group.members.length || last?.exit !== undefined;
    if (short) this.d.placer.stoppedShort.add(w.producer);
    else this.d.placer.stoppedShort.delete(w.producer);
    w.hosted = r?.hosted === true;
    if (w.sent && !w.hosted) {
      w.sent.release();
      w.sent = undefined;
    }
  }

  /** The consumer's request already running for `group`, if any: `inputs` are let go (its host has its own). */
  claim(group: FusedGroup, inputs: Record<string, Tensor>, canTransfer: (t: Tensor) => boolean): Claimed | undefined {
    const w = this.byConsumer.get(group.members[0]!.id);
    if (!w?.sent) return undefined;
    const { claimed } = w.sent;
    w.sent = undefined;
    for (const port in inputs) canTransfer(inputs[port]!);
    return claimed;
  }

  /**
   * `group`'s request answered: the time from its producer's end to now, less its own compute, is recorded against
   * the choice, which is returned (whether its producer's worker ran it); undefined for a request no choice was made for.
   */
  consumed(group: FusedGroup, r: ChainResult): boolean | undefined {
    const w = this.byConsumer.get(group.members[0]!.id);
    if (!w || w.readyNs === undefined) return undefined;
    const hosted = w.hosted === true;
    const ms = (Number(process.hrtime.bigint()) - w.readyNs) / 1e6 - chainComputeMs(r.stages);
    afterTurn(() => this.d.placer.recordHost(w.key, hosted, ms, r.instance));
    w.readyNs = undefined;
    return hosted;
  }

  /** The reader of `group`'s outputs with the longest compute measured, when every reader's is. */
  private critical(group: FusedGroup): Target | undefined {
    const { fused, runtimes, placer } = this.d;
    let best: Target | undefined;
    let longest = -1;
    for (const reader of readersOf(this.d.index, group.members[group.members.length - 1]!.id)) {
      const g = fused.get(reader.id);
      const model = g && modelOf(g);
      const rt = model && runtimes.get(model.id);
      if (!g || !model || !rt) continue;
      const ms = placer.costs.estimate(this.d.keyOf(this.d.graph, model), 'chain');
      if (ms === undefined) return undefined;
      if (ms > longest) [best, longest] = [{ group: g, model, rt, feeds: reader.feeds }, ms];
    }
    return best;
  }
}

function modelOf(group: FusedGroup): GraphNode {
  return group.members.find((m) => m.kind === 'model')!;
}

/**
 * The producer's instance that runs the consumer's request and the consumer's instance it occupies meanwhile (each the
 * one its pool would pick now), the key of the consumer's model in the producer's worker, and the id the request is
 * registered under; `release` fails it where it is registered.
 */
function hostLink(
  from: ModelRuntime,
  to: ModelRuntime,
): { from: number; to: number; guest: string; id: number; release: () => void } | undefined {
  if (from === to || from.sequences || to.sequences) return undefined;
  if (!(from.backend instanceof OnnxBackend) || !(to.backend instanceof OnnxBackend)) return undefined;
  const a = from.backend.pool.nextIdle();
  const b = to.backend.pool.nextIdle();
  if (a < 0 || b < 0) return undefined;
  const consumer = to.backend.pool.instances[b]!;
  const link = from.backend.pool.instances[a]!.host?.(consumer);
  if (!link) return undefined;
  return { from: a, to: b, ...link, release: () => consumer.release?.(link.id) };
}
