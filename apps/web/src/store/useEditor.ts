import { useContext } from 'react';
import { useStore } from 'zustand';
import { EditorContext } from './EditorProvider.tsx';
import type { EditorStore } from './createEditorStore.ts';
import type { EditorState } from './types.ts';

/**
 * Reads the editor store with a selector; throws outside `EditorProvider`.
 * @example const graph = useEditor((s) => s.doc.graph)
 */
export function useEditor<T>(selector: (s: EditorState) => T): T {
  return useStore(useEditorStore(), selector);
}

/** The store itself, for callbacks that read state at call time. */
export function useEditorStore(): EditorStore {
  const store = useContext(EditorContext);
  if (!store) throw new Error('useEditor must be used inside <EditorProvider>');
  return store;
}

/** The actions object (stable for the store's lifetime). */
export function useActions(): EditorState['actions'] {
  return useEditor((s) => s.actions);
}
