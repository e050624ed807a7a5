import {
  addNode,
  connect,
  createNode,
  disconnect,
  duplicateNodes,
  moveNodes,
  removeNodes,
  renameGraph,
  setLabel,
  setMaxBatchSize,
  setParams,
} from '@ensemble-studio/core';
import type { GraphDoc, NodeKind, XY } from '@ensemble-studio/core';
import * as history from './history.ts';
import { baseId, edgeId, idFactory } from './ids.ts';
import type { DocActions, Fragment, GetEditorState, SetEditorState } from './types.ts';

/** Where pasted/duplicated copies land relative to the originals. */
const PASTE_OFFSET: XY = { x: 40, y: 40 };

/**
 * Replaces the document with `next`; `record` makes it one undo step, `ignore` (a drag in progress)
 * does not. Selection is pruned to what still exists.
 */
export function commit(
  set: SetEditorState,
  get: GetEditorState,
  next: GraphDoc,
  mode: history.HistoryMode = 'record',
): void {
  const s = get();
  if (next === s.doc.graph) return;
  const ids = new Set(next.nodes.map((n) => n.id));
  const eids = new Set(next.edges.map((e) => e.id));
  const sel = s.ui.selection;
  const selection =
    sel.nodes.every((id) => ids.has(id)) && sel.edges.every((id) => eids.has(id))
      ? sel
      : { nodes: sel.nodes.filter((id) => ids.has(id)), edges: sel.edges.filter((id) => eids.has(id)) };
  set({
    doc: { ...s.doc, graph: next },
    history: history.record(s.history, s.doc.graph, next, mode),
    ui: { ...s.ui, selection },
  });
}

/** Adds copies of `fragment` (nodes + their edges) to `graph` using only core ops. */
function pasteFragment(graph: GraphDoc, fragment: Fragment, offset: XY): { graph: GraphDoc; ids: string[] } {
  const TMP = '\u0000clip:';
  const staged: GraphDoc = {
    ...graph,
    nodes: [...graph.nodes, ...fragment.nodes.map((n) => ({ ...n, id: TMP + n.id }))],
    edges: [
      ...graph.edges,
      ...fragment.edges.map((e) => ({ ...e, id: TMP + e.id, source: TMP + e.source, target: TMP + e.target })),
    ],
  };
  const nextId = idFactory(staged);
  const ids: string[] = [];
  const idFor = (old: string) => {
    const id = nextId(old.startsWith(TMP) ? old.slice(TMP.length) : old);
    if (fragment.nodes.some((n) => TMP + n.id === old)) ids.push(id);
    return id;
  };
  const copied = duplicateNodes(
    staged,
    fragment.nodes.map((n) => TMP + n.id),
    idFor,
    offset,
  );
  const done = removeNodes(
    copied,
    fragment.nodes.map((n) => TMP + n.id),
  );
  // Edge ids of copies follow the readable `a.p->b.q` convention.
  return {
    graph: { ...done, edges: done.edges.map((e) => (graph.edges.includes(e) ? e : { ...e, id: edgeId(e) })) },
    ids,
  };
}

export function createDocActions(set: SetEditorState, get: GetEditorState): DocActions {
  const graph = () => get().doc.graph;
  const apply = (next: GraphDoc, mode: history.HistoryMode = 'record') => commit(set, get, next, mode);
  const selectNodes = (nodes: string[]) => set((s) => ({ ui: { ...s.ui, selection: { nodes, edges: [] } } }));
  return {
    loadGraph(g, saved = true) {
      set((s) => ({
        doc: { graph: g, saved: saved ? g : null },
        history: history.emptyHistory(),
        ui: { ...s.ui, selection: { nodes: [], edges: [] }, loaded: s.ui.loaded + 1 },
      }));
    },
    markSaved(g) {
      set((s) => ({ doc: { ...s.doc, saved: g } }));
    },
    addNode(template, position) {
      const id = idFactory(graph())(baseId(template));
      const extra: Record<string, unknown> = {};
      if (template.model) extra.model = template.model;
      if (template.op) extra.op = template.op;
      const node = createNode(template.kind as NodeKind, id, position, get().catalogue, extra as never);
      apply(addNode(graph(), node));
      selectNodes([id]);
      return id;
    },
    connect(c) {
      apply(connect(graph(), { id: edgeId(c), ...c }));
    },
    removeSelection() {
      const { nodes, edges } = get().ui.selection;
      apply(removeNodes(disconnect(graph(), edges), nodes));
    },
    removeEdges(ids) {
      apply(disconnect(graph(), ids));
    },
    setParams(id, params) {
      apply(setParams(graph(), id, params));
    },
    setLabel(id, label) {
      apply(setLabel(graph(), id, label.trim() || undefined));
    },
    renameGraph(name) {
      apply(renameGraph(graph(), name));
    },
    setMaxBatchSize(n) {
      apply(setMaxBatchSize(graph(), n));
    },
    moveNodes(positions) {
      apply(moveNodes(graph(), positions));
    },
    paste() {
      const clip = get().ui.clipboard;
      if (!clip || clip.nodes.length === 0) return;
      const { graph: next, ids } = pasteFragment(graph(), clip, PASTE_OFFSET);
      apply(next);
      selectNodes(ids);
      // Paste again → a further offset, like every drawing tool.
      set((s) => ({
        ui: {
          ...s.ui,
          clipboard: {
            ...clip,
            nodes: clip.nodes.map((n) => ({
              ...n,
              position: { x: n.position.x + PASTE_OFFSET.x, y: n.position.y + PASTE_OFFSET.y },
            })),
          },
        },
      }));
    },
    duplicateSelection() {
      const ids = get().ui.selection.nodes;
      if (ids.length === 0) return;
      const { graph: next, ids: copies } = pasteFragment(graph(), fragmentOf(graph(), ids), PASTE_OFFSET);
      apply(next);
      selectNodes(copies);
    },
    undo() {
      const r = history.undo(get().history, graph());
      if (r) set((s) => ({ doc: { ...s.doc, graph: r.doc }, history: r.history }));
    },
    redo() {
      const r = history.redo(get().history, graph());
      if (r) set((s) => ({ doc: { ...s.doc, graph: r.doc }, history: r.history }));
    },
  };
}

/** The selected nodes and the edges among them. */
export function fragmentOf(graph: GraphDoc, ids: readonly string[]): Fragment {
  const picked = new Set(ids);
  return {
    nodes: graph.nodes.filter((n) => picked.has(n.id)),
    edges: graph.edges.filter((e) => picked.has(e.source) && picked.has(e.target)),
  };
}
