import type { Catalogue } from '../catalogue/types.ts';
import { edgesOutOf, nodeById, reaches } from '../graph/queries.ts';
import type { GraphDoc, GraphNode } from '../graph/types.ts';
import type { PortSpec } from '../kinds/params.ts';
import { nodePorts } from '../kinds/registry.ts';
import {
  dtypesCompatible,
  formatShape,
  portKey,
  propagateTypes,
  shapesCompatible,
  type PortType,
} from './propagate.ts';

/** A connection the editor is about to make: output port → input port. */
export interface Connection {
  source: string;
  sourcePort: string;
  target: string;
  targetPort: string;
}
export type CanConnectResult = { ok: true } | { ok: false; reason: string };

const show = (n: GraphNode): string => `'${n.label ?? n.id}'`;

/** Typed input ports reached through router/condition pass-through ports starting at `node.port`. */
function passThroughConsumers(
  graph: GraphDoc,
  catalogue: Catalogue,
  node: GraphNode,
  port: string,
  seen = new Set<string>(),
): { node: GraphNode; spec: PortSpec }[] {
  if (seen.has(node.id)) return [];
  seen.add(node.id);
  const outs =
    node.kind === 'router'
      ? Array.from({ length: node.params.count }, (_, i) => `out_${i}`)
      : node.kind === 'condition'
        ? [port]
        : [];
  const found: { node: GraphNode; spec: PortSpec }[] = [];
  for (const e of outs.flatMap((p) => edgesOutOf(graph, node.id, p))) {
    const next = nodeById(graph, e.target);
    if (!next) continue;
    const spec = nodePorts(graph, next, catalogue).inputs.find((p) => p.name === e.targetPort);
    if (!spec) continue;
    if (spec.datatype === null && spec.shape === null)
      found.push(...passThroughConsumers(graph, catalogue, next, e.targetPort, seen));
    else found.push({ node: next, spec });
  }
  return found;
}

function typeProblem(from: string, t: PortType, to: string, spec: PortSpec): string | undefined {
  if (!dtypesCompatible(t.datatype, spec.datatype))
    return `dtype mismatch: ${from} is ${t.datatype} but ${to} expects ${spec.datatype}`;
  if (!shapesCompatible(t.shape, spec.shape))
    return `shape mismatch: ${from} is ${formatShape(t.shape)} but ${to} expects ${formatShape(spec.shape)}`;
  return undefined;
}

/**
 * Whether the editor may draw this edge (checked at drop). An input that is already fed may be
 * connected again: the new edge replaces the old one. Types come from `propagateTypes`, so a
 * router's outputs carry what feeds the router; a router/condition target is checked against the
 * typed ports it passes the tensor on to.
 * @example canConnect(graph, catalogue, { source: 'det', sourcePort: 'prob', target: 'db', targetPort: 'prob' })
 */
export function canConnect(graph: GraphDoc, catalogue: Catalogue, c: Connection): CanConnectResult {
  const src = nodeById(graph, c.source);
  const tgt = nodeById(graph, c.target);
  if (!src) return { ok: false, reason: `unknown node '${c.source}'` };
  if (!tgt) return { ok: false, reason: `unknown node '${c.target}'` };
  if (src.id === tgt.id) return { ok: false, reason: `${show(src)} cannot feed itself` };
  if (!nodePorts(graph, src, catalogue).outputs.some((p) => p.name === c.sourcePort)) {
    return { ok: false, reason: `${show(src)} has no output port '${c.sourcePort}'` };
  }
  const spec = nodePorts(graph, tgt, catalogue).inputs.find((p) => p.name === c.targetPort);
  if (!spec) return { ok: false, reason: `${show(tgt)} has no input port '${c.targetPort}'` };
  if (reaches(graph, tgt.id, src.id))
    return { ok: false, reason: `would create a cycle: ${show(src)} already depends on ${show(tgt)}` };
  const t = propagateTypes(graph, catalogue).get(portKey(src.id, c.sourcePort)) ?? { datatype: null, shape: null };
  const from = `${show(src)}.${c.sourcePort}`;
  const direct = typeProblem(from, t, `${show(tgt)}.${c.targetPort}`, spec);
  if (direct) return { ok: false, reason: direct };
  for (const down of passThroughConsumers(graph, catalogue, tgt, c.targetPort)) {
    const problem = typeProblem(from, t, `${show(down.node)}.${down.spec.name} (through ${show(tgt)})`, down.spec);
    if (problem) return { ok: false, reason: problem };
  }
  return { ok: true };
}
