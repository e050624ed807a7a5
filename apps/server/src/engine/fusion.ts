import type { GraphDoc, GraphEdge, GraphNode, ModelNode } from '@ensemble-studio/core';
import type { StepSource } from './backends/onnx/workerProtocol.ts';

/**
 * Nodes that run as one request in the model's worker, in order. `inputs[k]` (k ≥ 1) says where each
 * input port of member k comes from: an output of an earlier member. Member 0 takes what the scheduler
 * delivers to it, as feeds named by its ports.
 */
export interface FusedGroup {
  members: GraphNode[];
  inputs: Record<string, StepSource>[];
}

/**
 * Op fusion: an op that only feeds a model, and an op that only reads a model's outputs, run in that
 * model's worker in the same request, so a tensor never crosses threads between them. Each worker hop
 * wakes two sleeping threads (0.6–1 ms on the 2-core VMs this runs on), as long as the ops themselves.
 *
 * A group is `[pre?, model, post?]` with at least one op, where
 * - every input of the model comes from `pre`, and every output of `pre` goes to the model or to `post`;
 * - every output of the model goes to `post`, and every input of `post` comes from the model or `pre`.
 * So nothing outside the group waits for a tensor inside it, and the group can start the moment its
 * first node could. Only models that run each request alone (`fusable`) take part: a batched or
 * stateful model mixes requests of several runs in one execution.
 * @example planFusion(ocrGraph(), () => true).get('preprocess')!.members.map((n) => n.id) // ['preprocess', 'det', 'db']
 */
export function planFusion(graph: GraphDoc, fusable: (node: ModelNode) => boolean): Map<string, FusedGroup> {
  const byId = new Map(graph.nodes.map((n) => [n.id, n]));
  const into = new Map<string, GraphEdge[]>();
  const from = new Map<string, GraphEdge[]>();
  for (const e of graph.edges) {
    into.set(e.target, [...(into.get(e.target) ?? []), e]);
    from.set(e.source, [...(from.get(e.source) ?? []), e]);
  }
  /** The one node at the other end of `edges`, when there is exactly one and it is an op. */
  const soleOp = (edges: GraphEdge[] | undefined, end: 'source' | 'target'): GraphNode | undefined => {
    const ids = new Set((edges ?? []).map((e) => e[end]));
    const node = ids.size === 1 ? byId.get([...ids][0]!) : undefined;
    return node?.kind === 'op' ? node : undefined;
  };
  const taken = new Set<string>();
  const groups = new Map<string, FusedGroup>();
  for (const m of graph.nodes) {
    if (m.kind !== 'model' || !fusable(m)) continue;
    let pre = soleOp(into.get(m.id), 'source');
    let post = soleOp(from.get(m.id), 'target');
    if (pre && taken.has(pre.id)) pre = undefined;
    if (post && taken.has(post.id)) post = undefined;
    if (pre && !(from.get(pre.id) ?? []).every((e) => e.target === m.id || e.target === post?.id)) pre = undefined;
    if (post && !(into.get(post.id) ?? []).every((e) => e.source === m.id || e.source === pre?.id)) post = undefined;
    // Dropping `post` may leave `pre` feeding a node outside the group: check it again.
    if (pre && !(from.get(pre.id) ?? []).every((e) => e.target === m.id || e.target === post?.id)) pre = undefined;
    const members = [pre, m, post].filter((n): n is GraphNode => n !== undefined);
    if (members.length < 2) continue;
    for (const n of members) taken.add(n.id);
    const at = new Map(members.map((n, k) => [n.id, k]));
    const inputs = members.map((n, k) =>
      k === 0
        ? {}
        : Object.fromEntries(
            (into.get(n.id) ?? []).map((e) => [e.targetPort, { step: at.get(e.source)!, port: e.sourcePort }]),
          ),
    );
    groups.set(members[0]!.id, { members, inputs });
  }
  return groups;
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
