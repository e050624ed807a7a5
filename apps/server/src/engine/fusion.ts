import {
  indexGraph,
  parseExpression,
  type GraphDoc,
  type GraphEdge,
  type GraphNode,
  type ModelNode,
} from '@ensemble-studio/core';
import type { StepSource } from './backends/onnx/workerProtocol.ts';

/**
 * Nodes that run as one request in the model's worker, in order. `inputs[k]` (k ≥ 1) says where each
 * input port of member k comes from: an output of an earlier member. Member 0 takes what the scheduler
 * delivers to it, as feeds named by its ports.
 */
export interface FusedGroup {
  members: GraphNode[];
  inputs: Record<string, StepSource>[];
  /** Per member before the last: its ports that also feed output nodes, sent back with the group's result. */
  exports?: string[][];
}

/**
 * Op fusion: an op that only feeds a model, and an op that only reads a model's outputs, run in that
 * model's worker in the same request, so a tensor never crosses threads between them. Each worker hop
 * wakes two sleeping threads, which takes about as long as the ops themselves (bench/README.md).
 *
 * A group is `[pre?, model, post?]` with at least one op, where
 * - every input of the model comes from `pre`, and every output of `pre` goes to the model or to `post`;
 * - every output of the model goes to `post`, and every input of `post` comes from the model or `pre`.
 * Behind `post`, a condition and the op behind it (`tail`) join too, when every other input they read
 * is a tensor the group's first member is given, and their outputs go only to each other, to the next
 * member, or (sent back with the result) to output nodes: the condition is evaluated in the worker, and
 * when it holds the request ends there, an early exit.
 * So nothing outside the group but output nodes waits for a tensor inside it, and the group can start
 * the moment its first node could. Only models that run each request alone (`fusable`) take part: a
 * batched or stateful model mixes requests of several runs in one execution.
 * @example planFusion(ocrGraph(), () => true).get('preprocess')!.members.map((n) => n.id) // ['preprocess', 'det', 'db', 'has_text', 'crop']
 */
export function planFusion(graph: GraphDoc, fusable: (node: ModelNode) => boolean): Map<string, FusedGroup> {
  const index = indexGraph(graph);
  /** The one node at the other end of `edges`, when there is exactly one and it is an op. */
  const soleOp = (edges: readonly GraphEdge[] | undefined, end: 'source' | 'target'): GraphNode | undefined => {
    const ids = new Set((edges ?? []).map((e) => e[end]));
    const node = ids.size === 1 ? index.node([...ids][0]!) : undefined;
    return node?.kind === 'op' ? node : undefined;
  };
  const taken = new Set<string>();
  const groups = new Map<string, FusedGroup>();
  for (const m of graph.nodes) {
    if (m.kind !== 'model' || !fusable(m)) continue;
    let pre = soleOp(index.into(m.id), 'source');
    let post = soleOp(index.outOf(m.id), 'target');
    if (pre && taken.has(pre.id)) pre = undefined;
    if (post && taken.has(post.id)) post = undefined;
    if (pre && !index.outOf(pre.id).every((e) => e.target === m.id || e.target === post?.id)) pre = undefined;
    if (post && !index.into(post.id).every((e) => e.source === m.id || e.source === pre?.id)) post = undefined;
    // Dropping `post` may leave `pre` feeding a node outside the group: check it again.
    if (pre && !index.outOf(pre.id).every((e) => e.target === m.id || e.target === post?.id)) pre = undefined;
    const members = [pre, m, post].filter((n): n is GraphNode => n !== undefined);
    if (members.length < 2) continue;
    // Where the first member's inputs come from: a later member reading the same tensor gets it as a feed.
    const feeds = new Map(index.into(members[0]!.id).map((e) => [`${e.source}\u0000${e.sourcePort}`, e.targetPort]));
    const source = (e: GraphEdge, at: Map<string, number>): StepSource | undefined => {
      const step = at.get(e.source);
      if (step !== undefined) return { step, port: e.sourcePort };
      const feed = feeds.get(`${e.source}\u0000${e.sourcePort}`);
      return feed === undefined ? undefined : { feed };
    };
    if (post) members.push(...tail(index, post, taken, (e) => source(e, new Map(members.map((n, k) => [n.id, k])))));
    for (const n of members) taken.add(n.id);
    const at = new Map(members.map((n, k) => [n.id, k]));
    const inputs = members.map((n, k) =>
      k === 0 ? {} : Object.fromEntries(index.into(n.id).map((e) => [e.targetPort, source(e, at)!])),
    );
    const exports = members.map((n, k) =>
      k === members.length - 1
        ? []
        : [
            ...new Set(
              index.outOf(n.id).flatMap((e) => (index.node(e.target)?.kind === 'output' ? [e.sourcePort] : [])),
            ),
          ],
    );
    groups.set(members[0]!.id, exports.some((x) => x.length > 0) ? { members, inputs, exports } : { members, inputs });
  }
  return groups;
}

/**
 * The condition and the op behind `post` that may join its group (none, or both): each the only node
 * but output nodes its predecessor feeds, each reading only from the group (`source`) and the one before.
 */
function tail(
  index: ReturnType<typeof indexGraph>,
  post: GraphNode,
  taken: ReadonlySet<string>,
  source: (e: GraphEdge) => StepSource | undefined,
): GraphNode[] {
  const next = (from: GraphNode): GraphNode | undefined => {
    const ids = new Set(
      index.outOf(from.id).flatMap((e) => (index.node(e.target)?.kind === 'output' ? [] : [e.target])),
    );
    const node = ids.size === 1 ? index.node([...ids][0]!) : undefined;
    return node && !taken.has(node.id) ? node : undefined;
  };
  const cond = next(post);
  if (cond?.kind !== 'condition' || !parseExpression(cond.params.expression).ok) return [];
  const op = next(cond);
  if (op?.kind !== 'op') return [];
  const reads = (n: GraphNode, before: GraphNode) =>
    index.into(n.id).every((e) => e.source === before.id || source(e) !== undefined);
  return reads(cond, post) && reads(op, cond) ? [cond, op] : [];
}

/**
 * Where each member of a group that ran from `startedAt` to `endedAt` sat on the run's timeline: laid
 * back to back from the end by the compute times the worker measured. The first member's span also
 * holds the queue and the thread hops, so the spans cover the whole request.
 * @example memberSpans(0, 10, [2, 5]) // [{ start: 0, end: 5 }, { start: 5, end: 10 }]
 */
export function memberSpans(startedAt: number, endedAt: number, computeMs: number[]): { start: number; end: number }[] {
  const spans: { start: number; end: number }[] = [];
  let end = endedAt;
  for (let k = computeMs.length - 1; k >= 0; k--) {
    const start = k === 0 ? startedAt : Math.max(startedAt, end - computeMs[k]!);
    spans[k] = { start, end };
    end = start;
  }
  return spans;
}

/**
 * The members of `group` other than its model that must be fused together or not at all: `[pre, post]`
 * when post reads an output of pre (it would have no way to get it once pre ran elsewhere), else each op
 * alone; then the tail (a condition and the op behind it: the condition alone in the worker saves no hop).
 * A unit that reads a member of an earlier unit runs fused only when that unit does (`runFusion.ts`).
 * @example fusionUnits(planFusion(ocrGraph(), () => true).get('preprocess')!).map((u) => u.map((n) => n.id)) // [['preprocess', 'db'], ['has_text', 'crop']]
 */
export function fusionUnits(group: FusedGroup): GraphNode[][] {
  const model = group.members.findIndex((m) => m.kind === 'model');
  const pre = model === 1 ? group.members[0] : undefined;
  const post = group.members[model + 1];
  const tail = group.members.slice(model + 2);
  const coupled = pre && post && Object.values(group.inputs[model + 1]!).some((src) => 'step' in src && src.step === 0);
  const units = coupled ? [[pre, post]] : [pre, post].filter((n): n is GraphNode => n !== undefined).map((n) => [n]);
  if (tail.length > 0) units.push(tail);
  return units;
}

/**
 * `group` with only the op members in `keep` (whole units of `fusionUnits`): the model and those ops,
 * each step's inputs renumbered; undefined when no op is kept (the model then runs as a node of its own).
 * @example trimGroup(group, new Set(['ctc'])) // the rec group, unchanged
 */
export function trimGroup(group: FusedGroup, keep: ReadonlySet<string>): FusedGroup | undefined {
  const kept = group.members.map((m, k) => ({ m, k })).filter(({ m }) => m.kind === 'model' || keep.has(m.id));
  if (kept.length < 2) return undefined;
  if (kept.length === group.members.length) return group;
  const at = new Map(kept.map(({ k }, j) => [k, j]));
  const inputs = kept.map(({ k }, j) =>
    j === 0
      ? {}
      : Object.fromEntries(
          Object.entries(group.inputs[k]!).map(([port, src]) => {
            if (!('step' in src)) return [port, src];
            const step = at.get(src.step);
            if (step === undefined) throw new Error(`fused step ${k} reads step ${src.step}, which was left out`);
            return [port, { step, port: src.port }];
          }),
        ),
  );
  const exports = group.exports && kept.map(({ k }) => group.exports![k]!);
  return { members: kept.map(({ m }) => m), inputs, ...(exports ? { exports } : {}) };
}

/** Whether node `id` is a member of `group` (none when there is no group). */
export function inGroup(group: readonly GraphNode[] | undefined, id: string): boolean {
  if (group) for (const m of group) if (m.id === id) return true;
  return false;
}
