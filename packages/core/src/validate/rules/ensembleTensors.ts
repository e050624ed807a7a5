import type { GraphNode } from '../../graph/types.ts';
import type { Diagnostic } from '../diagnostic.ts';
import { show, type Rule } from '../context.ts';
import { tritonNameProblem } from '../names.ts';

/** Names Triton would refuse (the graph's, models', ensemble tensors'), and two ensemble tensors of one name. */
export const tensorNames: Rule = ({ graph }) => {
  const out: Diagnostic[] = [];
  const problem = tritonNameProblem(graph.name);
  if (problem)
    out.push({
      code: 'invalid-name',
      severity: 'error',
      message: `graph name '${graph.name}' ${problem}`,
      fix: 'rename the graph',
    });
  const byName = new Map<string, GraphNode>();
  for (const n of graph.nodes) {
    if (n.kind === 'model') {
      const p = tritonNameProblem(n.params.model);
      if (p)
        out.push({
          code: 'invalid-name',
          severity: 'error',
          nodeId: n.id,
          message: `model name '${n.params.model}' ${p}`,
          fix: 'rename the model directory in the repository',
        });
    }
    if (n.kind !== 'input' && n.kind !== 'output') continue;
    const p = tritonNameProblem(n.params.name);
    if (p)
      out.push({
        code: 'invalid-name',
        severity: 'error',
        nodeId: n.id,
        message: `${n.kind} tensor name '${n.params.name}' ${p}`,
        fix: `rename ${show(n)}`,
      });
    const first = byName.get(n.params.name);
    if (first)
      out.push({
        code: 'duplicate-tensor-name',
        severity: 'error',
        nodeId: n.id,
        message: `${n.kind} ${show(n)} is named '${n.params.name}' like ${first.kind} ${show(first)}`,
        fix: `rename ${show(n)}`,
      });
    else byName.set(n.params.name, n);
  }
  return out;
};

/** An optional ensemble input wired to a required input: a request that omits it fails. */
export const optionalInputs: Rule = (ctx) => {
  const out: Diagnostic[] = [];
  for (const n of ctx.graph.nodes) {
    if (n.kind !== 'input' || !n.params.optional) continue;
    for (const e of ctx.index.outOf(n.id)) {
      const tgt = ctx.nodes.get(e.target);
      const spec = tgt && ctx.ports.get(tgt.id)!.inputs.find((p) => p.name === e.targetPort);
      if (!tgt || !spec || spec.optional || tgt.kind === 'router' || tgt.kind === 'condition') continue;
      out.push({
        code: 'optional-input-required',
        severity: 'warning',
        nodeId: n.id,
        edgeId: e.id,
        message: `optional ensemble input '${n.params.name}' feeds required input ${show(tgt)}.${e.targetPort}: a request that omits it fails`,
        fix: `make input ${show(n)} required, or feed it to an optional input`,
      });
    }
  }
  return out;
};
