import { createStore, type StoreApi } from 'zustand/vanilla';
import type { Catalogue, GraphDoc } from '@ensemble-studio/core';
import { newGraph } from '@ensemble-studio/core';
import { initialRun } from '../run/runReducer.ts';
import { createDocActions } from './docSlice.ts';
import { emptyHistory } from './history.ts';
import { createRunActions } from './runSlice.ts';
import type { EditorState, Theme } from './types.ts';
import { createUiActions, initialUi } from './uiSlice.ts';

export interface EditorInit {
  catalogue: Catalogue;
  graph?: GraphDoc;
  theme?: Theme;
}
export type EditorStore = StoreApi<EditorState>;

/**
 * The editor's store: doc (saved, undone), ui (session only) and run (written by runSocket) slices
 * plus actions named after what the user means. Works without React, so tests drive it directly.
 * @example const store = createEditorStore({ catalogue, graph }); store.getState().actions.addNode({ kind: 'router' }, { x: 0, y: 0 })
 */
export function createEditorStore(init: EditorInit): EditorStore {
  return createStore<EditorState>()((set, get) => {
    const graph = init.graph ?? newGraph('untitled');
    return {
      catalogue: init.catalogue,
      doc: { graph, saved: init.graph ? graph : null },
      history: emptyHistory(),
      ui: initialUi(init.theme),
      run: initialRun(),
      actions: { ...createDocActions(set, get), ...createUiActions(set, get), ...createRunActions(set) },
    };
  });
}
