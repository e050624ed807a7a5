import { createContext, useState, type ReactNode } from 'react';
import { createEditorStore, type EditorInit, type EditorStore } from './createEditorStore.ts';

export const EditorContext = createContext<EditorStore | null>(null);

/** Creates the editor store once and provides it to `useEditor`. */
export function EditorProvider({ init, children }: { init: EditorInit; children: ReactNode }) {
  const [store] = useState(() => createEditorStore(init));
  return <EditorContext.Provider value={store}>{children}</EditorContext.Provider>;
}
