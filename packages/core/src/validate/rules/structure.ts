import { ancestors, findCycle } from '../../graph/queries.ts';
import type { GraphNode } from '../../graph/types.ts';
import { opDef } from '../../ops/defs.ts';
import type { Diagnostic } from '../diagnostic.ts';
import { show, type Rule, type RuleContext } from '../context.ts';
import { catalogueModel } from '../../catalogue/types.ts';

const STEP_KINDS = new Set(['model', 'op', 'router', 'condition']);

/** Whether a node's ports are known (an unknown model/op has none: its own rule reports it). */
const portsKnown = (ctx: RuleContext, n: GraphNode): boolean =>
  !(n.kind === 'model' && !catalogueModel(ctx.catalogue, n.params.model)) && !(n.kind === 'op' && !opDef(n.params.op));

export const emptyGraph: Rule = ({ graph }) => {
  if (graph.nodes.some((n) => STEP_KINDS.has(n.kind))) return [];
  const message =
    graph.nodes.length === 0
      ? 'the graph is empty'
      : 'the graph has no steps: Triton needs at least one step in an ensemble';
  return [
    {
      code: 'empty-graph',
      severity: 'error',
      message,
      fix: 'drag a model or an op from the palette and wire the inputs and outputs to it',
    },
  ];
};

export const cycles: Rule = ({ graph, nodes }) => {
  const cycle = findCycle(graph);
  if (!cycle) return [];
  const names = [...cycle, cycle[0]!].map((id) => show(nodes.get(id)!));
  return [
    {
      code: 'cycle',
      severity: 'error',
      nodeId: cycle[0],
      message: `cycle: ${names.join(' → ')}`,
      fix: 'remove one of the edges of the cycle',
    },
  ];
};

export const danglingEdges: Rule = (ctx) => {
  const out: Diagnostic[] = [];
  for (const e of ctx.graph.edges) {
    const src = ctx.nodes.get(e.source);
    const tgt = ctx.nodes.get(e.target);
    let problem: string | undefined;
    if (!src) problem = `starts at unknown node '${e.source}'`;
    else if (!tgt) problem = `ends at unknown node '${e.target}'`;
    else if (portsKnown(ctx, src) && !ctx.ports.get(src.id)!.outputs.some((p) => p.name === e.sourcePort))
      problem = `starts at unknown output port '${e.sourcePort}' of ${show(src)}`;
    else if (portsKnown(ctx, tgt) && !ctx.ports.get(tgt.id)!.inputs.some((p) => p.name === e.targetPort))
      problem = `ends at unknown input port '${e.targetPort}' of ${show(tgt)}`;
    if (problem)
      out.push({
        code: 'dangling-edge',
        severity: 'error',
        edgeId: e.id,
        nodeId: tgt ? tgt.id : src?.id,
        message: `edge ${problem}`,
        fix: 'delete the edge',
      });
  }
  return out;
};

export const doublyFedInputs: Rule = ({ graph, nodes }) => {
  const out: Diagnostic[] = [];
  const seen = new Set<string>();
  for (const e of graph.edges) {
    const key = `${e.target}\u0000${e.targetPort}`;
    const tgt = nodes.get(e.target);
    if (!seen.has(key)) {
      seen.add(key);
      continue;
    }
    if (!tgt) continue;
    if (tgt.kind === 'output') {
      out.push({
        code: 'tensor-two-producers',
        severity: 'error',
        edgeId: e.id,
        nodeId: tgt.id,
        port: e.targetPort,
        message: `ensemble output '${tgt.params.name}' is written by two producers`,
        fix: `delete one of the edges into ${show(tgt)}`,
      });
    } else {
      out.push({
        code: 'duplicate-input-edge',
        severity: 'error',
        edgeId: e.id,
        nodeId: tgt.id,
        port: e.targetPort,
        message: `input '${e.targetPort}' of ${show(tgt)} is fed by two edges; an input has exactly one producer`,
        fix: `delete one of the edges into ${show(tgt)}.${e.targetPort}`,
      });
    }
  }
  return out;
};

export const unconnectedInputs: Rule = (ctx) => {
  const out: Diagnostic[] = [];
  for (const n of ctx.graph.nodes) {
    for (const p of ctx.ports.get(n.id)!.inputs) {
      if (p.optional || ctx.index.into(n.id, p.name).length > 0) continue;
      if (n.kind === 'output') {
        out.push({
          code: 'output-not-fed',
          severity: 'error',
          nodeId: n.id,
          port: p.name,
          message: `ensemble output '${n.params.name}' is not written by any step`,
          fix: `connect a step output to ${show(n)} or delete it`,
        });
      } else {
        out.push({
          code: 'unconnected-input',
          severity: 'error',
          nodeId: n.id,
          port: p.name,
          message: `required input '${p.name}' of ${show(n)} is not connected`,
          fix: `connect a tensor to ${show(n)}.${p.name}`,
        });
      }
    }
  }
  return out;
};

export const unusedTensors: Rule = (ctx) => {
  const out: Diagnostic[] = [];
  for (const n of ctx.graph.nodes) {
    if (n.kind === 'input' && ctx.index.outOf(n.id).length === 0) {
      out.push({
        code: 'unused-input',
        severity: 'error',
        nodeId: n.id,
        port: 'out',
        message: `ensemble input '${n.params.name}' is not read by any step (Triton refuses unused ensemble inputs)`,
        fix: `connect ${show(n)} to a step or delete it`,
      });
    }
    if (n.kind !== 'model' && n.kind !== 'op' && n.kind !== 'condition') continue;
    const outputs = ctx.ports.get(n.id)!.outputs;
    let used = 0;
    for (const p of outputs) {
      if (ctx.index.outOf(n.id, p.name).length > 0) {
        used++;
        continue;
      }
      out.push({
        code: 'unused-output',
        severity: 'warning',
        nodeId: n.id,
        port: p.name,
        message: `output '${p.name}' of ${show(n)} is not consumed: the compiler prunes it (Triton refuses unused ensemble tensors)`,
        fix: `connect ${show(n)}.${p.name} to a step or an output if you need it`,
      });
    }
    // An ensemble step must map at least one output (a BLS export has no steps).
    if (used === 0 && portsKnown(ctx, n) && !isBlsGraph(ctx)) {
      out.push({
        code: 'step-without-outputs',
        severity: 'error',
        nodeId: n.id,
        message: `${show(n)} has no connected output: Triton needs every ensemble step to map at least one output`,
        fix: `connect an output of ${show(n)} or delete it`,
      });
    }
  }
  return out;
};

/** A step output can be mapped to one ensemble tensor only, so it cannot write two ensemble outputs. */
export const sharedOutputs: Rule = (ctx) => {
  if (isBlsGraph(ctx)) return [];
  const out: Diagnostic[] = [];
  for (const n of ctx.graph.nodes) {
    if (!STEP_KINDS.has(n.kind)) continue;
    for (const p of ctx.ports.get(n.id)?.outputs ?? []) {
      const names = new Set<string>();
      for (const e of ctx.index.outOf(n.id, p.name)) {
        const t = ctx.nodes.get(e.target);
        if (t?.kind === 'output') names.add(t.params.name);
      }
      if (names.size < 2) continue;
      out.push({
        code: 'output-wired-twice',
        severity: 'error',
        nodeId: n.id,
        port: p.name,
        message: `output '${p.name}' of ${show(n)} feeds several ensemble outputs (${[...names].join(', ')}); Triton maps a step output to one tensor`,
        fix: `insert a copy router after ${show(n)}.${p.name}`,
      });
    }
  }
  return out;
};

const isBlsGraph = (ctx: RuleContext): boolean =>
  ctx.graph.nodes.some((n) => n.kind === 'condition' && n.params.strategy === 'bls');

/** First required input left unconnected among `ids`, as a phrase. */
function brokenAncestor(ctx: RuleContext, ids: Set<string>, at: ReadonlyMap<string, number>): string | undefined {
  const inOrder = [...ids].sort((a, b) => at.get(a)! - at.get(b)!);
  for (const id of inOrder) {
    const n = ctx.index.node(id)!;
    if (n.kind === 'model' && !catalogueModel(ctx.catalogue, n.params.model))
      return `depends on ${show(n)}, whose model is unknown`;
    const p = ctx.ports.get(n.id)!.inputs.find((i) => !i.optional && ctx.index.into(n.id, i.name).length === 0);
    if (p) return `depends on ${show(n)}, whose input '${p.name}' is not connected`;
  }
  return undefined;
}

export const unreachedOutputs: Rule = (ctx) => {
  const out: Diagnostic[] = [];
  const at = new Map(ctx.index.ids.map((id, i) => [id, i]));
  for (const n of ctx.graph.nodes) {
    if (n.kind !== 'output') continue;
    const feeders = ctx.index.into(n.id).map((e) => ctx.nodes.get(e.source));
    if (feeders.length === 0) continue;
    const direct = feeders.find((f) => f?.kind === 'input');
    if (direct) {
      out.push({
        code: 'output-not-reached',
        severity: 'error',
        nodeId: n.id,
        message: `ensemble output '${n.params.name}' is fed straight from ensemble input ${show(direct)}: a Triton ensemble needs a step to write it`,
        fix: 'insert a model or op between them',
      });
      continue;
    }
    const why = brokenAncestor(ctx, ancestors(ctx.index, n.id), at);
    if (why)
      out.push({
        code: 'output-not-reached',
        severity: 'error',
        nodeId: n.id,
        message: `ensemble output '${n.params.name}' is never written: it ${why}`,
        fix: 'connect the missing input upstream',
      });
  }
  return out;
};
