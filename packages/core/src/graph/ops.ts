import type { Catalogue, CatalogueModel } from '../catalogue/types.ts';
import { KIND_DEFS } from '../kinds/registry.ts';
import { OP_DEFS, opDefaults } from '../ops/defs.ts';
import { layoutGraph } from './layout.ts';
import { GRAPH_VERSION } from './types.ts';
import type { GraphDoc, GraphEdge, GraphNode, NodeKind, NodeOfKind, OpId, XY } from './types.ts';

// Every op is pure `(doc, args) => doc`: it never mutates its arguments and keeps untouched
// nodes/edges by reference (structural sharing), so undo history stays cheap.

/**
 * An empty graph document.
 * @example newGraph('ocr') // { version: 1, name: 'ocr', maxBatchSize: 0, nodes: [], edges: [] }
 */
export function newGraph(name: string): GraphDoc {
  return { version: GRAPH_VERSION, name, maxBatchSize: 0, nodes: [], edges: [] };
}

/**
 * Adds a node (replacing a node with the same id).
 * @example addNode(doc, createNode('router', 'r1', { x: 0, y: 0 }, catalogue))
 */
export function addNode(doc: GraphDoc, node: GraphNode): GraphDoc {
  const exists = doc.nodes.some((n) => n.id === node.id);
  return { ...doc, nodes: exists ? doc.nodes.map((n) => (n.id === node.id ? node : n)) : [...doc.nodes, node] };
}

/**
 * Removes nodes and every edge touching them.
 * @example removeNodes(doc, ['det', 'db'])
 */
export function removeNodes(doc: GraphDoc, ids: readonly string[]): GraphDoc {
  const gone = new Set(ids);
  if (!doc.nodes.some((n) => gone.has(n.id))) return doc;
  return {
    ...doc,
    nodes: doc.nodes.filter((n) => !gone.has(n.id)),
    edges: doc.edges.filter((e) => !gone.has(e.source) && !gone.has(e.target)),
  };
}

/**
 * Connects an output port to an input port. An input has one producer: an existing edge into the
 * same target port is replaced.
 * @example connect(doc, { id: 'e1', source: 'det', sourcePort: 'prob', target: 'db', targetPort: 'prob' })
 */
export function connect(doc: GraphDoc, edge: GraphEdge): GraphDoc {
  const kept = doc.edges.filter(
    (e) => e.id !== edge.id && !(e.target === edge.target && e.targetPort === edge.targetPort),
  );
  return { ...doc, edges: [...kept, edge] };
}

/**
 * Removes edges by id.
 * @example disconnect(doc, ['e1'])
 */
export function disconnect(doc: GraphDoc, edgeIds: readonly string[]): GraphDoc {
  const gone = new Set(edgeIds);
  if (!doc.edges.some((e) => gone.has(e.id))) return doc;
  return { ...doc, edges: doc.edges.filter((e) => !gone.has(e.id)) };
}

function updateNode(doc: GraphDoc, id: string, f: (n: GraphNode) => GraphNode): GraphDoc {
  if (!doc.nodes.some((n) => n.id === id)) return doc;
  return { ...doc, nodes: doc.nodes.map((n) => (n.id === id ? f(n) : n)) };
}

/** Port names that exist on a router/condition, known without the catalogue. */
function structuralPorts(node: GraphNode): { inputs: Set<string>; outputs: Set<string> } | null {
  if (node.kind === 'router') {
    return {
      inputs: new Set(['in']),
      outputs: new Set(Array.from({ length: Math.max(0, node.params.count) }, (_, i) => `out_${i}`)),
    };
  }
  if (node.kind === 'condition') return { inputs: new Set(node.params.ports), outputs: new Set(node.params.ports) };
  return null;
}

/**
 * Merges `params` into a node's params. Edges to router/condition ports that no longer exist
 * (fewer outputs, a removed condition port) are dropped.
 * @example setParams(doc, 'r1', { count: 3 })
 */
export function setParams(doc: GraphDoc, id: string, params: Record<string, unknown>): GraphDoc {
  const next = updateNode(doc, id, (n) => ({ ...n, params: { ...n.params, ...params } }) as GraphNode);
  const node = next.nodes.find((n) => n.id === id);
  const ports = node ? structuralPorts(node) : null;
  if (!ports) return next;
  const edges = next.edges.filter(
    (e) => (e.target !== id || ports.inputs.has(e.targetPort)) && (e.source !== id || ports.outputs.has(e.sourcePort)),
  );
  return edges.length === next.edges.length ? next : { ...next, edges };
}

/**
 * Sets (or, with undefined/'', clears) a node's display label.
 * @example setLabel(doc, 'det', 'Text detector')
 */
export function setLabel(doc: GraphDoc, id: string, label: string | undefined): GraphDoc {
  return updateNode(doc, id, (n) => {
    const { label: _old, ...rest } = n;
    return (label ? { ...rest, label } : rest) as GraphNode;
  });
}

/**
 * Moves nodes to absolute positions.
 * @example moveNodes(doc, { det: { x: 260, y: 0 } })
 */
export function moveNodes(doc: GraphDoc, positions: Readonly<Record<string, XY>>): GraphDoc {
  if (!doc.nodes.some((n) => positions[n.id])) return doc;
  return {
    ...doc,
    nodes: doc.nodes.map((n) => {
      const p = positions[n.id];
      return p ? { ...n, position: { x: p.x, y: p.y } } : n;
    }),
  };
}

/** @example renameGraph(doc, 'ocr_v2') */
export function renameGraph(doc: GraphDoc, name: string): GraphDoc {
  return doc.name === name ? doc : { ...doc, name };
}

/** @example setMaxBatchSize(doc, 8) */
export function setMaxBatchSize(doc: GraphDoc, maxBatchSize: number): GraphDoc {
  return doc.maxBatchSize === maxBatchSize ? doc : { ...doc, maxBatchSize };
}

function uniqueTensorName(doc: GraphDoc, kind: 'input' | 'output', base: string, taken: Set<string>): string {
  for (const n of doc.nodes) if (n.kind === kind) taken.add(n.params.name);
  let i = 1;
  while (taken.has(`${base}_${i}`)) i++;
  const name = `${base}_${i}`;
  taken.add(name);
  return name;
}

/**
 * Copies nodes (and the edges among them) with new ids from `idFor(oldId)` (called for node ids
 * and edge ids), shifted by `offset`. Copied input/output nodes get fresh tensor names.
 * @example duplicateNodes(doc, ['det'], (id) => `${id}-copy`, { x: 40, y: 40 })
 */
export function duplicateNodes(
  doc: GraphDoc,
  ids: readonly string[],
  idFor: (oldId: string) => string,
  offset: XY,
): GraphDoc {
  const picked = new Set(ids);
  const idMap = new Map<string, string>();
  const taken = new Set<string>();
  const copies: GraphNode[] = [];
  for (const n of doc.nodes) {
    if (!picked.has(n.id)) continue;
    const id = idFor(n.id);
    idMap.set(n.id, id);
    const position = { x: n.position.x + offset.x, y: n.position.y + offset.y };
    let params = JSON.parse(JSON.stringify(n.params)) as GraphNode['params'];
    if (n.kind === 'input' || n.kind === 'output')
      params = { ...n.params, name: uniqueTensorName(doc, n.kind, n.params.name, taken) };
    copies.push({ ...n, id, position, params } as GraphNode);
  }
  const edges = doc.edges
    .filter((e) => idMap.has(e.source) && idMap.has(e.target))
    .map((e) => ({ ...e, id: idFor(e.id), source: idMap.get(e.source)!, target: idMap.get(e.target)! }));
  return { ...doc, nodes: [...doc.nodes, ...copies], edges: [...doc.edges, ...edges] };
}

type ParamsOf<K extends NodeKind> = NodeOfKind<K>['params'];

function defaultParams(kind: NodeKind, id: string, catalogue: Catalogue, extra: Record<string, unknown>): unknown {
  switch (kind) {
    case 'input':
    case 'output':
      return { name: id, datatype: 'FP32', dims: [-1] };
    case 'model':
      return { model: typeof extra.model === 'string' ? extra.model : (Object.keys(catalogue.models).sort()[0] ?? '') };
    case 'router':
    case 'condition': {
      const defaults = Object.fromEntries(KIND_DEFS[kind].params.map((p) => [p.name, p.default]));
      return kind === 'router' ? defaults : { ...defaults, ports: ['boxes'], defaults: {} };
    }
    case 'op': {
      const op = (typeof extra.op === 'string' && extra.op in OP_DEFS ? extra.op : 'image_preprocess') as OpId;
      const values = { ...opDefaults(op), ...(extra.values as Record<string, unknown> | undefined) };
      return { op, values };
    }
  }
}

/**
 * A new node with the defaults of its kind (KIND_DEFS / OP_DEFS), overridden by `extra`.
 * @example createNode('op', 'pre', { x: 0, y: 0 }, catalogue, { op: 'image_preprocess' })
 * @example createNode('model', 'det', { x: 260, y: 0 }, catalogue, { model: 'det' })
 */
export function createNode<K extends NodeKind>(
  kind: K,
  id: string,
  position: XY,
  catalogue: Catalogue,
  extra: Partial<ParamsOf<K>> = {},
): NodeOfKind<K> {
  const base = defaultParams(kind, id, catalogue, extra as Record<string, unknown>) as Record<string, unknown>;
  const params = kind === 'op' ? { ...extra, ...base } : { ...base, ...extra };
  return { id, kind, position: { x: position.x, y: position.y }, params } as unknown as NodeOfKind<K>;
}

/**
 * A graph that runs one model: an input node per model input → the model → an output node per
 * model output (used by KServe infer on a plain model). Ids: `in:<tensor>`, `model`, `out:<tensor>`.
 * @example singleModelGraph(catalogue.models.det!).nodes.length // inputs + 1 + outputs
 */
export function singleModelGraph(model: CatalogueModel): GraphDoc {
  const nodes: GraphNode[] = [];
  const edges: GraphEdge[] = [];
  const at = { x: 0, y: 0 };
  for (const t of model.inputs) {
    nodes.push({
      id: `in:${t.name}`,
      kind: 'input',
      position: at,
      params: { name: t.name, datatype: t.datatype, dims: [...t.dims], ...(t.optional ? { optional: true } : {}) },
    });
    edges.push({
      id: `e:in:${t.name}`,
      source: `in:${t.name}`,
      sourcePort: 'out',
      target: 'model',
      targetPort: t.name,
    });
  }
  nodes.push({ id: 'model', kind: 'model', position: at, params: { model: model.name } });
  for (const t of model.outputs) {
    nodes.push({
      id: `out:${t.name}`,
      kind: 'output',
      position: at,
      params: { name: t.name, datatype: t.datatype, dims: [...t.dims] },
    });
    edges.push({
      id: `e:out:${t.name}`,
      source: 'model',
      sourcePort: t.name,
      target: `out:${t.name}`,
      targetPort: 'in',
    });
  }
  return layoutGraph({
    version: GRAPH_VERSION,
    name: model.name,
    maxBatchSize: Math.max(0, model.maxBatchSize),
    nodes,
    edges,
  });
}
