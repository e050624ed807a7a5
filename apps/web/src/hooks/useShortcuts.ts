import { useEffect } from 'react';
import type { EditorStore } from '../store/createEditorStore.ts';

/** Keyboard shortcuts, listed in the help overlay. `mod` = Ctrl (⌘ on macOS). */
export const SHORTCUTS: { keys: string; does: string }[] = [
  { keys: 'mod+Z', does: 'Undo' },
  { keys: 'mod+Shift+Z / mod+Y', does: 'Redo' },
  { keys: 'mod+C / mod+V', does: 'Copy / paste selected nodes' },
  { keys: 'mod+D', does: 'Duplicate selection' },
  { keys: 'Delete / Backspace', does: 'Delete selected nodes and edges' },
  { keys: 'mod+A', does: 'Select all nodes' },
  { keys: 'mod+S', does: 'Save the graph to the repository' },
  { keys: 'L', does: 'Auto-layout (wrapped to fill the canvas)' },
  { keys: 'F', does: 'Fit view (toolbar)' },
  { keys: 'Enter (on a palette item)', does: 'Add it at the centre of the view' },
  { keys: 'Shift+drag / mod+click', does: 'Box-select / add to selection' },
  { keys: '?', does: 'Show this help' },
  { keys: 'Esc', does: 'Close dialogs, clear selection' },
];

const typing = (t: EventTarget | null) =>
  t instanceof HTMLElement && (t.isContentEditable || ['INPUT', 'TEXTAREA', 'SELECT'].includes(t.tagName));

/** Binds editor shortcuts on window; `extra` handles save, fit and layout (they need the API / viewport). */
export function useShortcuts(store: EditorStore, extra: { save(): void; fit(): void; layout(): void }): void {
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if (typing(e.target)) return;
      const s = store.getState();
      const a = s.actions;
      const mod = e.ctrlKey || e.metaKey;
      const key = e.key.toLowerCase();
      const act = (f: () => void) => {
        e.preventDefault();
        f();
      };
      if (mod && key === 'z') act(e.shiftKey ? a.redo : a.undo);
      else if (mod && key === 'y') act(a.redo);
      else if (mod && key === 'c') act(a.copySelection);
      else if (mod && key === 'v') act(a.paste);
      else if (mod && key === 'd') act(a.duplicateSelection);
      else if (mod && key === 's') act(extra.save);
      else if (mod && key === 'a') act(() => a.select({ nodes: s.doc.graph.nodes.map((n) => n.id), edges: [] }));
      else if (mod || e.altKey) return;
      else if (key === 'delete' || key === 'backspace') act(a.removeSelection);
      else if (key === '?') act(() => a.toggleHelp());
      else if (key === 'escape')
        act(() => {
          a.toggleHelp(false);
          a.select({ nodes: [], edges: [] });
        });
      else if (key === 'l') act(extra.layout);
      else if (key === 'f') act(extra.fit);
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, [store, extra]);
}
