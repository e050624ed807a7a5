import { useCallback, useEffect, useMemo, useState } from 'react';
import { migrate, newGraph } from '@ensemble-studio/core';
import type { ApiGraphListing, GraphDoc } from '@ensemble-studio/core';
import { api } from '../api/client.ts';
import type { EditorStore } from '../store/createEditorStore.ts';
import { useEditorStore } from '../store/useEditor.ts';
import { selectDirty } from '../store/selectors.ts';

/** Remembers the open graph in the URL, so a reload reopens it. */
export function setGraphInUrl(name: string): void {
  const url = new URL(window.location.href);
  url.searchParams.set('graph', name);
  window.history.replaceState(null, '', url);
}

function download(blob: Blob, filename: string): void {
  const a = document.createElement('a');
  a.href = URL.createObjectURL(blob);
  a.download = filename;
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(a.href), 10_000);
}

/** Fetches a saved graph and brings it up to the current document version. */
export async function loadGraphDoc(name: string): Promise<GraphDoc> {
  const r = migrate(await api.graph(name));
  if (!r.ok) throw new Error(`graph '${name}' cannot be opened: ${r.error}`);
  return r.graph;
}

const UNSAVED = 'This graph has unsaved changes. Discard them?';

/** The store's actions, the unsaved-changes guard and the error toast, for one store. */
function fileHelpers(store: EditorStore) {
  const actions = () => store.getState().actions;
  const guard = () => !selectDirty(store.getState()) || window.confirm(UNSAVED);
  const fail = (e: unknown) => actions().notify((e as Error).message, 'error');
  return { actions, guard, fail };
}

/** Open / save / new / export against the repository, with the unsaved-changes guard. */
export function useGraphFiles() {
  const store = useEditorStore();
  const [graphs, setGraphs] = useState<ApiGraphListing[]>([]);
  const refresh = useCallback(() => api.graphs().then(setGraphs, () => setGraphs([])), []);
  useEffect(() => {
    void refresh();
  }, [refresh]);
  useEffect(() => {
    const onBeforeUnload = (e: BeforeUnloadEvent) => {
      if (selectDirty(store.getState())) e.preventDefault();
    };
    window.addEventListener('beforeunload', onBeforeUnload);
    return () => window.removeEventListener('beforeunload', onBeforeUnload);
  }, [store]);
  const { actions, guard, fail } = useMemo(() => fileHelpers(store), [store]);

  const open = useCallback(
    async (name: string) => {
      if (!guard()) return;
      try {
        const doc = await loadGraphDoc(name);
        actions().loadGraph(doc);
        setGraphInUrl(doc.name);
      } catch (e) {
        fail(e);
      }
    },
    [actions, guard, fail],
  );
  const save = useCallback(async () => {
    const graph = store.getState().doc.graph;
    try {
      const r = await api.saveGraph(graph);
      actions().markSaved(graph);
      setGraphInUrl(graph.name);
      const errors = r.diagnostics.filter((d) => d.severity === 'error').length;
      actions().notify(
        errors
          ? `Saved '${graph.name}' as a draft (${errors} problem${errors > 1 ? 's' : ''} left)`
          : `Saved '${graph.name}'`,
      );
      void refresh();
    } catch (e) {
      fail(e);
    }
  }, [store, actions, fail, refresh]);
  const create = useCallback(() => {
    if (!guard()) return;
    const taken = new Set(graphs.map((g) => g.name));
    let name = 'untitled';
    for (let i = 2; taken.has(name); i++) name = `untitled_${i}`;
    actions().loadGraph(newGraph(name), false);
  }, [graphs, actions, guard]);
  const exportZip = useCallback(async () => {
    const graph = store.getState().doc.graph;
    try {
      download(await api.exportZip(graph), `${graph.name}-model_repository.zip`);
    } catch (e) {
      fail(e);
    }
  }, [store, fail]);
  return { graphs, open, save, create, exportZip };
}
