import { useEffect, useMemo, useState } from 'react';
import { ReactFlowProvider, useReactFlow } from '@xyflow/react';
import type { Catalogue, GraphDoc } from '@ensemble-studio/core';
import { newGraph } from '@ensemble-studio/core';
import { api } from './api/client.ts';
import { autoLayout, canvasView } from './canvas/autoLayout.ts';
import { Canvas } from './canvas/Canvas.tsx';
import type { PipelineFlowNode } from './canvas/toFlow.ts';
import { fitLegible } from './canvas/viewport.ts';
import { loadGraphDoc, setGraphInUrl, useGraphFiles } from './hooks/useGraphFiles.ts';
import { useShortcuts } from './hooks/useShortcuts.ts';
import { HelpOverlay } from './panels/HelpOverlay.tsx';
import { Inspector } from './panels/Inspector.tsx';
import { Palette } from './panels/Palette.tsx';
import { PreviewPanel } from './panels/PreviewPanel.tsx';
import { ProblemsPanel } from './panels/ProblemsPanel.tsx';
import { RunPanel } from './panels/RunPanel.tsx';
import { ToastView } from './panels/ToastView.tsx';
import { Toolbar } from './panels/Toolbar.tsx';
import { RunSocketProvider } from './run/RunSocketProvider.tsx';
import { EditorProvider } from './store/EditorProvider.tsx';
import { useEditor, useEditorStore } from './store/useEditor.ts';
import type { RightPanel, Theme } from './store/types.ts';

const DEFAULT_GRAPH = 'ocr';
const PANELS: { id: RightPanel; label: string }[] = [
  { id: 'inspect', label: 'Inspector' },
  { id: 'preview', label: 'Preview' },
  { id: 'run', label: 'Run' },
];

function Sidebar() {
  const panel = useEditor((s) => s.ui.panel);
  const setPanel = useEditor((s) => s.actions.setPanel);
  return (
    <aside className={`sidebar panel-${panel}`}>
      <nav className="tabs" role="tablist">
        {PANELS.map((p) => (
          <button
            key={p.id}
            role="tab"
            aria-selected={panel === p.id}
            className={panel === p.id ? 'on' : ''}
            onClick={() => setPanel(p.id)}
          >
            {p.label}
          </button>
        ))}
      </nav>
      <div className="sidebar-body">
        {panel === 'inspect' && <Inspector />}
        {panel === 'preview' && <PreviewPanel />}
        {panel === 'run' && <RunPanel />}
      </div>
    </aside>
  );
}

function Editor() {
  const store = useEditorStore();
  const theme = useEditor((s) => s.ui.theme);
  const files = useGraphFiles();
  const saveGraph = files.save;
  const rf = useReactFlow<PipelineFlowNode>();
  const extra = useMemo(
    () => ({
      save: () => void saveGraph(),
      fit: () => fitLegible(rf, 200),
      layout: () => {
        const s = store.getState();
        s.actions.moveNodes(autoLayout(s.doc.graph, s.ui.measured, canvasView()));
        requestAnimationFrame(() => fitLegible(rf, 200));
      },
    }),
    [saveGraph, rf, store],
  );
  useShortcuts(store, extra);
  useEffect(() => {
    document.documentElement.dataset.theme = theme;
    localStorage.setItem('studio.theme', theme);
  }, [theme]);
  return (
    <div className={`app theme-${theme}`}>
      <Toolbar
        graphs={files.graphs}
        onOpen={(n) => void files.open(n)}
        onSave={() => void files.save()}
        onNew={files.create}
        onExport={() => void files.exportZip()}
      />
      <div className="main">
        <Palette />
        <div className="center">
          <Canvas />
          <ProblemsPanel />
        </div>
        <Sidebar />
      </div>
      <ToastView />
      <HelpOverlay />
    </div>
  );
}

interface Boot {
  catalogue: Catalogue;
  graph: GraphDoc;
}

async function boot(): Promise<Boot> {
  const wanted = new URL(window.location.href).searchParams.get('graph');
  const [catalogue, graphs] = await Promise.all([api.catalogue(), api.graphs()]);
  const name = [wanted, DEFAULT_GRAPH, graphs[0]?.name].find((n) => n && graphs.some((g) => g.name === n));
  const graph = name ? await loadGraphDoc(name) : newGraph('untitled');
  if (name) setGraphInUrl(name);
  return { catalogue, graph };
}

/** Loads the catalogue and the graph to open (`?graph=`, else `ocr`), then mounts the editor. */
export function App() {
  const [state, setState] = useState<Boot | Error | null>(null);
  useEffect(() => {
    boot().then(setState, (e: Error) => setState(e));
  }, []);
  if (state === null) return <div className="boot">Loading the repository…</div>;
  if (state instanceof Error) {
    return (
      <div className="boot error">
        <h2>Cannot reach the studio server</h2>
        <p>{state.message}</p>
        <p>
          Start it with <code>pnpm studio serve</code> and reload.
        </p>
      </div>
    );
  }
  const theme = (localStorage.getItem('studio.theme') as Theme | null) ?? 'dark';
  return (
    <EditorProvider init={{ catalogue: state.catalogue, graph: state.graph, theme }}>
      <RunSocketProvider>
        <ReactFlowProvider>
          <Editor />
        </ReactFlowProvider>
      </RunSocketProvider>
    </EditorProvider>
  );
}
