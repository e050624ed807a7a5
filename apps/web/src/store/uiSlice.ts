import type { EdgeChange, NodeChange } from '@xyflow/react';
import type { XY } from '@ensemble-studio/core';
import { moveNodes } from '@ensemble-studio/core';
import { commit, fragmentOf } from './docSlice.ts';
import * as history from './history.ts';
import type { GetEditorState, Selection, SetEditorState, Size, UiActions, UiState } from './types.ts';

export const initialUi = (theme: UiState['theme'] = 'dark'): UiState => ({
  selection: { nodes: [], edges: [] },
  measured: {},
  dragging: false,
  toast: null,
  panel: 'inspect',
  help: false,
  theme,
  focus: null,
  clipboard: null,
  loaded: 0,
  source: null,
});

function applySelect(sel: string[], changes: { id: string; selected: boolean }[]): string[] {
  const next = new Set(sel);
  for (const c of changes) {
    if (c.selected) next.add(c.id);
    else next.delete(c.id);
  }
  return next.size === sel.length && sel.every((id) => next.has(id)) ? sel : [...next];
}

let toastSeq = 0;
let focusSeq = 0;

/**
 * Routes React Flow's node changes: select and dimensions go to ui; position while
 * dragging updates doc without history (marking the start); position at drag end squashes the whole
 * drag into one undo step. Removal is handled by `removeSelection` (the editor owns the Delete key).
 */
function routeNodeChanges(set: SetEditorState, get: GetEditorState, changes: NodeChange[]): void {
  const selects: { id: string; selected: boolean }[] = [];
  const measured: Record<string, Size> = {};
  const moving: Record<string, XY> = {};
  let dragEnd = false;
  let dragging = false;
  for (const c of changes) {
    if (c.type === 'select') selects.push(c);
    else if (c.type === 'dimensions' && c.dimensions) measured[c.id] = c.dimensions;
    else if (c.type === 'position') {
      if (c.position) moving[c.id] = c.position;
      if (c.dragging) dragging = true;
      else dragEnd = true;
    }
  }
  if (selects.length > 0 || Object.keys(measured).length > 0) {
    set((s) => {
      const nodes = applySelect(s.ui.selection.nodes, selects);
      const selection = nodes === s.ui.selection.nodes ? s.ui.selection : { ...s.ui.selection, nodes };
      const m = Object.keys(measured).length > 0 ? { ...s.ui.measured, ...measured } : s.ui.measured;
      return { ui: { ...s.ui, selection, measured: m } };
    });
  }
  if (Object.keys(moving).length > 0) {
    if (dragging)
      set((s) => ({
        history: history.mark(s.history, s.doc.graph),
        ui: s.ui.dragging ? s.ui : { ...s.ui, dragging: true },
      }));
    commit(set, get, moveNodes(get().doc.graph, moving), get().history.mark ? 'ignore' : 'record');
  }
  if (dragEnd) set((s) => ({ history: history.squash(s.history, s.doc.graph), ui: { ...s.ui, dragging: false } }));
}

export function createUiActions(set: SetEditorState, get: GetEditorState): UiActions {
  const ui = (patch: Partial<UiState>) => set((s) => ({ ui: { ...s.ui, ...patch } }));
  return {
    select(selection: Selection) {
      ui({ selection });
    },
    applyNodeChanges(changes: NodeChange[]) {
      routeNodeChanges(set, get, changes);
    },
    applyEdgeChanges(changes: EdgeChange[]) {
      const selects = changes.filter((c): c is Extract<EdgeChange, { type: 'select' }> => c.type === 'select');
      if (selects.length === 0) return;
      set((s) => {
        const edges = applySelect(s.ui.selection.edges, selects);
        return edges === s.ui.selection.edges ? {} : { ui: { ...s.ui, selection: { ...s.ui.selection, edges } } };
      });
    },
    copySelection() {
      const ids = get().ui.selection.nodes;
      if (ids.length === 0) return;
      ui({ clipboard: fragmentOf(get().doc.graph, ids) });
      get().actions.notify(`Copied ${ids.length} node${ids.length > 1 ? 's' : ''}`);
    },
    notify(text, level = 'info') {
      ui({ toast: { id: ++toastSeq, level, text } });
    },
    dismissToast() {
      ui({ toast: null });
    },
    setPanel(panel) {
      ui({ panel });
    },
    toggleHelp(open) {
      ui({ help: open ?? !get().ui.help });
    },
    setTheme(theme) {
      ui({ theme });
    },
    focusNode(nodeId) {
      ui({ focus: { nodeId, seq: ++focusSeq }, selection: { nodes: [nodeId], edges: [] }, panel: 'inspect' });
    },
    showSource(nodeId, line) {
      const seq = ++focusSeq;
      ui({
        focus: { nodeId, seq },
        selection: { nodes: [nodeId], edges: [] },
        panel: 'inspect',
        source: { nodeId, line: line ?? null, seq },
      });
    },
  };
}
