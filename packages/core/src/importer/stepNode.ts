import type { CatalogueModel } from '../catalogue/types.ts';
import type { ConditionStrategy, GraphNode, OpId } from '../graph/types.ts';
import { OP_DEFS } from '../ops/defs.ts';
import type { StudioMarker } from './catalogueModel.ts';

/** A rebuilt node and how its model's tensor names map back to the node's port names. */
export interface StepNode {
  node: GraphNode;
  inPort(modelInput: string): string;
  outPort(modelOutput: string): string;
}

const identity = (name: string): string => name;
const isStringMap = (v: unknown): v is Record<string, string> =>
  typeof v === 'object' && v !== null && !Array.isArray(v) && Object.values(v).every((x) => typeof x === 'string');
const invert = (m: Record<string, string>): Map<string, string> => new Map(Object.entries(m).map(([k, v]) => [v, k]));
const at = { x: 0, y: 0 };

function routerNode(id: string, marker: StudioMarker, model: CatalogueModel): StepNode {
  const count =
    typeof marker.count === 'number' && Number.isInteger(marker.count) ? marker.count : model.outputs.length;
  return {
    node: { id, kind: 'router', position: at, params: { mode: marker.mode === 'direct' ? 'direct' : 'copy', count } },
    inPort: () => 'in',
    outPort: (o) => (/^out_\d+$/.test(o) ? o : `out_${model.outputs.findIndex((t) => t.name === o)}`),
  };
}

function conditionNode(id: string, marker: StudioMarker): StepNode {
  const strategies: ConditionStrategy[] = ['gate', 'bls', 'error'];
  const ports = Array.isArray(marker.ports) ? marker.ports.filter((p): p is string => typeof p === 'string') : [];
  const ins = invert(isStringMap(marker.inputs) ? marker.inputs : {});
  const outs = invert(isStringMap(marker.outputs) ? marker.outputs : {});
  return {
    node: {
      id,
      kind: 'condition',
      position: at,
      params: {
        expression: typeof marker.expression === 'string' ? marker.expression : '',
        strategy: strategies.find((s) => s === marker.strategy) ?? 'gate',
        ports,
        message: typeof marker.message === 'string' ? marker.message : '',
        defaults: {},
      },
    },
    inPort: (i) => ins.get(i) ?? i.replace(/^IN_/, ''),
    outPort: (o) => outs.get(o) ?? o.replace(/^OUT_/, ''),
  };
}

function opNode(id: string, marker: StudioMarker): StepNode {
  const raw =
    typeof marker.values === 'object' && marker.values !== null ? (marker.values as Record<string, unknown>) : {};
  const values = Object.fromEntries(
    Object.entries(raw).filter((e): e is [string, number | string | boolean] =>
      ['number', 'string', 'boolean'].includes(typeof e[1]),
    ),
  );
  return {
    node: { id, kind: 'op', position: at, params: { op: String(marker.op) as OpId, values } },
    inPort: identity,
    outPort: identity,
  };
}

/**
 * The node a step comes back as: a router/condition/op for a model carrying the studio marker,
 * else a model node. Returns undefined for a marker of an unknown kind (the caller falls back to a model node).
 */
export function stepNode(id: string, modelName: string, model: CatalogueModel | undefined): StepNode | undefined {
  const marker = model?.generated;
  if (!model || !marker)
    return {
      node: { id, kind: 'model', position: at, params: { model: modelName } },
      inPort: identity,
      outPort: identity,
    };
  if (marker.kind === 'router') return routerNode(id, marker, model);
  if (marker.kind === 'condition') return conditionNode(id, marker);
  if (marker.kind === 'op' && typeof marker.op === 'string' && marker.op in OP_DEFS) return opNode(id, marker);
  return undefined;
}
