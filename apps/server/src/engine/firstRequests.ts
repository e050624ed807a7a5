// A lone run's first fused requests go out as the run begins, before its scheduler, executor and ledger are built:
// that bookkeeping then runs while the model's worker computes, not before it (~90 µs of the main thread's way to the
// early exit's one request on a cold CPU; engine README, "The early exit's way, shortened").
import type { GraphNode, Tensor } from '@ensemble-studio/core';
import { chainSteps, type ChainPlan } from './chainSteps.ts';
import { EngineError } from './errors.ts';
import type { FusedGroup } from './fusion.ts';
import type { GraphIndex } from './graphIndex.ts';
import type { RunHosts } from './hostAhead.ts';
import type { ChainResult } from './modelRuntimeTypes.ts';
import type { ModelRuntime } from './ModelRuntime.ts';
import { nodeKey } from './nodeKey.ts';
import type { Placer } from './placement.ts';
import type { ExecContext } from './schedulerTypes.ts';
import { startNodes } from './spinAhead.ts';

/** What sending a fused group's request needs of the run. */
export interface SendDeps {
  graph: string;
  runtimes: Map<string, ModelRuntime>;
  ops: { placer: Placer };
  hosts?: RunHosts;
}

/** Model node `node`'s runtime in this run; throws for one without (resolved before the run starts, so a bug). */
export function runtimeOf(deps: { runtimes: Map<string, ModelRuntime> }, node: GraphNode): ModelRuntime {
  const rt = deps.runtimes.get(node.id);
  if (!rt) throw new EngineError('invalid-graph', `model node '${node.id}' has no runtime`);
  return rt;
}

/** A fused group's request on its way: its reply, when it was sent (`performance.now()`), and whether it wakes ahead. */
export interface SentGroup {
  promise: Promise<ChainResult>;
  t0: number;
  wakeAhead: boolean;
}

/**
 * Sends fused group `group`'s request with `inputs`: its model's worker runs its steps (`plan`), waking this thread
 * as its session returns where the placer says so, and going on to the request that reads it where hostAhead.ts
 * planned that. Throws for a model node with no runtime.
 */
export function sendGroup(
  deps: SendDeps,
  group: FusedGroup,
  inputs: Record<string, Tensor>,
  ctx: Pick<ExecContext, 'signal' | 'canTransfer' | 'observed'>,
  plan: ChainPlan = chainSteps(group, Object.keys(inputs)),
): SentGroup {
  const { steps, modelStep } = plan;
  const model = group.members[modelStep]!;
  const rt = runtimeOf(deps, model);
  // Steps after the session: the worker may wake the main thread as the session returns (Placer.wakeAhead).
  const wakeAhead = modelStep < steps.length - 1 && deps.ops.placer.wakeAhead(nodeKey(deps.graph, model));
  const t0 = performance.now();
  const out = deps.hosts?.plan(group, rt, ctx.observed);
  const promise = rt.runChain({
    feeds: inputs,
    steps,
    modelStep,
    signal: ctx.signal,
    canTransfer: ctx.canTransfer,
    summarize: ctx.observed,
    wakeAhead,
    ...(out ? { pin: out.pin, next: out.next } : {}),
  });
  out?.follow(ctx.signal);
  return { promise, t0, wakeAhead };
}

/** Graph inputs are the caller's: never moved, so a request sent before the run's references exist copies them. */
const keepsInputs = (): boolean => false;

/**
 * The requests of a run's fused groups that the graph's inputs alone feed, sent as the run begins; the scheduler's
 * launch of each group takes its request here (`claim`) instead of sending another.
 * @example const first = FirstRequests.send(deps, index, fused, req.inputs, ctx); … first.claim(group, inputs, canTransfer)
 */
export class FirstRequests {
  private constructor(private readonly sent: Map<string, SentGroup>) {}

  /** Sends the request of each fused group fed by graph inputs the request holds; undefined when there is none. */
  static send(
    deps: SendDeps,
    idx: GraphIndex,
    fused: Map<string, FusedGroup>,
    inputs: Record<string, Tensor>,
    ctx: Pick<ExecContext, 'signal' | 'observed'>,
  ): FirstRequests | undefined {
    let sent: Map<string, SentGroup> | undefined;
    for (const node of startNodes(idx)) {
      const group = fused.get(node.id);
      const feeds = group && feedsOf(idx, node, inputs);
      if (!group || !feeds) continue;
      const s = sendGroup(deps, group, feeds, { ...ctx, canTransfer: keepsInputs });
      // Awaited by the scheduler's claim; a failure before it is the claim's to report, not an unhandled one.
      s.promise.catch(() => {});
      (sent ??= new Map()).set(node.id, s);
    }
    return sent && new FirstRequests(sent);
  }

  /**
   * The request sent for `group` (by first member), once; each of its `inputs` is then let go of (`canTransfer`), as
   * sending it would have. They are the tensors it was sent with: the scheduler hands a start group the request's own
   * inputs, as `feedsOf` found them. Undefined when none was sent for it.
   */
  claim(group: FusedGroup, inputs: Record<string, Tensor>, canTransfer: (t: Tensor) => boolean): SentGroup | undefined {
    const id = group.members[0]!.id;
    const sent = this.sent.get(id);
    if (!sent) return undefined;
    this.sent.delete(id);
    for (const port in inputs) canTransfer(inputs[port]!);
    return sent;
  }
}

/** `node`'s inputs when every one of its ports is fed by a graph input that `inputs` holds; else undefined. */
function feedsOf(idx: GraphIndex, node: GraphNode, inputs: Record<string, Tensor>): Record<string, Tensor> | undefined {
  const feeds: Record<string, Tensor> = {};
  let n = 0;
  for (const source of idx.nodes.values()) {
    if (source.kind !== 'input') continue;
    for (const e of idx.out.get(source.id)?.get('out') ?? []) {
      if (e.target !== node.id) continue;
      const t = inputs[source.params.name];
      if (!t) return undefined;
      feeds[e.targetPort] = t;
      n++;
    }
  }
  return n > 0 && n === idx.inPorts.get(node.id)!.size ? feeds : undefined;
}
