import type { GraphEdge, GraphNode } from '../../graph/types.ts';
import type { PortSpec } from '../../kinds/params.ts';
import type { Diagnostic } from '../diagnostic.ts';
import { effectiveModel } from '../../config/nodeSettings.ts';
import { modelNodes, show, type Rule, type RuleContext } from '../context.ts';
import { dtypesCompatible, formatShape, portKey, shapesCompatible, type PortType } from '../propagate.ts';

/** Dims (no batch dim) an ensemble input/output must declare to have `shape` as its full shape. */
function dimsFor(ctx: RuleContext, shape: readonly number[]): number[] {
  return ctx.graph.maxBatchSize > 0 ? shape.slice(1) : [...shape];
}

function typeFix(
  ctx: RuleContext,
  src: GraphNode,
  tgt: GraphNode,
  want: PortSpec,
  have: PortType,
  what: 'dtype' | 'shape',
): string {
  if (what === 'dtype') {
    if (src.kind === 'input') return `set the datatype of input ${show(src)} to ${want.datatype}`;
    if (tgt.kind === 'output') return `set the datatype of output ${show(tgt)} to ${have.datatype}`;
    return `connect a ${want.datatype} tensor to ${show(tgt)}.${want.name}`;
  }
  const rankGap = Math.abs((want.shape?.length ?? 0) - (have.shape?.length ?? 0)) === 1;
  const batchHint = rankGap ? ' (one side has a batch dimension the other lacks: check max_batch_size)' : '';
  if (src.kind === 'input' && want.shape)
    return `set the dims of input ${show(src)} to ${formatShape(dimsFor(ctx, want.shape))}${batchHint}`;
  if (tgt.kind === 'output' && have.shape)
    return `set the dims of output ${show(tgt)} to ${formatShape(dimsFor(ctx, have.shape))}${batchHint}`;
  return `connect a tensor of shape ${formatShape(want.shape)} to ${show(tgt)}.${want.name}${batchHint}`;
}

function edgeTypeProblem(ctx: RuleContext, e: GraphEdge): Diagnostic | undefined {
  const src = ctx.nodes.get(e.source);
  const tgt = ctx.nodes.get(e.target);
  const want = tgt && ctx.ports.get(tgt.id)!.inputs.find((p) => p.name === e.targetPort);
  const have = ctx.types.get(portKey(e.source, e.sourcePort));
  if (!src || !tgt || !want || !have) return undefined;
  const where = { edgeId: e.id, nodeId: tgt.id, port: e.targetPort };
  if (!dtypesCompatible(have.datatype, want.datatype)) {
    return {
      code: 'dtype-mismatch',
      severity: 'error',
      ...where,
      message: `${show(src)}.${e.sourcePort} is ${have.datatype} but ${show(tgt)}.${e.targetPort} expects ${want.datatype}`,
      fix: typeFix(ctx, src, tgt, want, have, 'dtype'),
    };
  }
  if (!shapesCompatible(have.shape, want.shape)) {
    return {
      code: 'shape-mismatch',
      severity: 'error',
      ...where,
      message: `${show(src)}.${e.sourcePort} has shape ${formatShape(have.shape)} but ${show(tgt)}.${e.targetPort} expects ${formatShape(want.shape)} (-1 matches any size)`,
      fix: typeFix(ctx, src, tgt, want, have, 'shape'),
    };
  }
  return undefined;
}

/** dtype and full-shape agreement across every edge (router/condition ports carry their producer's type). */
export const edgeTypes: Rule = (ctx) =>
  ctx.graph.edges.map((e) => edgeTypeProblem(ctx, e)).filter((d): d is Diagnostic => d !== undefined);

export const batchSizes: Rule = (ctx) => {
  const out: Diagnostic[] = [];
  const ens = ctx.graph.maxBatchSize;
  if (!Number.isInteger(ens) || ens < 0) {
    out.push({
      code: 'invalid-max-batch-size',
      severity: 'error',
      message: `the ensemble's max_batch_size must be an integer ≥ 0 (got ${ens})`,
      fix: 'set max_batch_size to 0 (no batching) or a positive integer',
    });
    return out;
  }
  for (const n of modelNodes(ctx.graph)) {
    const m = effectiveModel(n, ctx.catalogue);
    if (!m || m.maxBatchSize <= 0 || m.maxBatchSize >= ens) continue;
    out.push({
      code: 'batch-size',
      severity: 'error',
      nodeId: n.id,
      message: `model '${n.params.model}' allows batches up to ${m.maxBatchSize} but the ensemble allows ${ens}`,
      fix: `set max_batch_size: ${ens} on ${n.params.model}, or lower the ensemble's max_batch_size to ${m.maxBatchSize}`,
    });
  }
  return out;
};
