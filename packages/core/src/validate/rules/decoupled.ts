import { topoSort } from '../../graph/graphIndex.ts';
import type { GraphNode } from '../../graph/types.ts';
import type { Diagnostic } from '../diagnostic.ts';
import { effectiveModel } from '../../config/nodeSettings.ts';
import { show, type Rule, type RuleContext } from '../context.ts';

/** Where a tensor's iterations come from: the request (every ensemble input) or one decoupled node. */
type Source = { kind: 'request' } | { kind: 'decoupled'; node: GraphNode };

const sourceKey = (s: Source): string => (s.kind === 'request' ? '' : s.node.id);
const describe = (s: Source): string =>
  s.kind === 'request'
    ? 'the ensemble inputs'
    : s.node.kind === 'condition'
      ? `gate ${show(s.node)}`
      : `decoupled model ${show(s.node)}`;

function isDecoupledSource(ctx: RuleContext, n: GraphNode): boolean {
  if (n.kind === 'condition') return n.params.strategy === 'gate';
  return n.kind === 'model' && (effectiveModel(n, ctx.catalogue)?.decoupled ?? false);
}

function joinFix(n: GraphNode, arriving: { port: string; source: Source }[]): string {
  const gate = arriving.find((a) => a.source.kind === 'decoupled' && a.source.node.kind === 'condition')?.source;
  if (gate && gate.kind === 'decoupled') {
    const others = arriving.filter((a) => sourceKey(a.source) !== gate.node.id).map((a) => `'${a.port}'`);
    return `route ${others.join(', ')} THROUGH the gate: add it to the ports of ${show(gate.node)} and connect ${show(n)} from the gate's output`;
  }
  return `feed ${show(n)} from a single decoupled source: pass the other tensors through the same decoupled model, or make one of the models non-decoupled`;
}

/**
 * Triton refuses a step whose inputs originate from different decoupled producers; the request's
 * own tensors (ensemble inputs) count as a source of their own.
 */
export const decoupledJoins: Rule = (ctx) => {
  const topo = topoSort(ctx.index);
  if (topo.blocked.length > 0) return [];
  const out: Diagnostic[] = [];
  const sourceOf = new Map<string, Source | null>(); // per node: the source of its outputs
  const outputs: { node: GraphNode; source: Source }[] = [];
  for (const id of topo.order) {
    const n = ctx.nodes.get(id)!;
    const arriving: { port: string; source: Source }[] = [];
    for (const e of ctx.index.into(id)) {
      const s = sourceOf.get(e.source);
      if (s) arriving.push({ port: e.targetPort, source: s });
    }
    const distinct = new Map(arriving.map((a) => [sourceKey(a.source), a.source]));
    if (distinct.size > 1 && n.kind !== 'output') {
      const parts = arriving.map((a) => `'${a.port}' (from ${describe(a.source)})`);
      out.push({
        code: 'mixed-decoupled-sources',
        severity: 'error',
        nodeId: n.id,
        message: `${show(n)} joins tensors from different decoupled sources: ${parts.join(', ')}; Triton refuses such a step`,
        fix: joinFix(n, arriving),
      });
    }
    if (n.kind === 'output' && arriving[0]) outputs.push({ node: n, source: arriving[0].source });
    if (n.kind === 'input') sourceOf.set(id, { kind: 'request' });
    else if (isDecoupledSource(ctx, n)) sourceOf.set(id, { kind: 'decoupled', node: n });
    else sourceOf.set(id, distinct.values().next().value ?? null);
  }
  // Triton reads the ensemble's outputs together, as one more step: they too must share one source.
  const first = outputs[0];
  const other = outputs.find((o) => sourceKey(o.source) !== sourceKey(first?.source ?? { kind: 'request' }));
  if (first && other) {
    out.push({
      code: 'mixed-decoupled-outputs',
      severity: 'error',
      nodeId: other.node.id,
      message: `ensemble outputs ${show(first.node)} (from ${describe(first.source)}) and ${show(other.node)} (from ${describe(other.source)}) come from different decoupled sources; Triton refuses the ensemble: step of model '${ctx.graph.name}' receives inputs originated from different decoupled models`,
      fix: `take every ensemble output from the same decoupled source, e.g. pass ${show(first.node)}'s tensor through ${describe(other.source)}`,
    });
  }
  return out;
};
