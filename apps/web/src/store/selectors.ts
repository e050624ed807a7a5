import type { EditorState } from './types.ts';
import { graphDiagnostics } from './derived.ts';

export const selectDirty = (s: EditorState) => s.doc.graph !== s.doc.saved;
export const selectCanUndo = (s: EditorState) => s.history.past.length > 0;
export const selectCanRedo = (s: EditorState) => s.history.future.length > 0;
export const selectDiagnostics = (s: EditorState) => graphDiagnostics(s.doc.graph, s.catalogue);
/** The one selected node id, or null when zero or several are selected. */
export const selectSingleNode = (s: EditorState) =>
  s.ui.selection.nodes.length === 1 ? (s.ui.selection.nodes[0] ?? null) : null;
