import { useReactFlow } from '@xyflow/react';
import { useEditor, useEditorStore } from '../store/useEditor.ts';
import { selectCanRedo, selectCanUndo, selectDirty } from '../store/selectors.ts';
import { autoLayout, canvasView } from '../canvas/autoLayout.ts';
import { fitLegible } from '../canvas/viewport.ts';
import type { PipelineFlowNode } from '../canvas/toFlow.ts';
import type { ApiGraphListing } from '@ensemble-studio/core';

interface Props {
  graphs: ApiGraphListing[];
  onOpen(name: string): void;
  onSave(): void;
  onNew(): void;
  onExport(): void;
}

/** Graph file actions, history, layout, export, run and view toggles. */
export function Toolbar({ graphs, onOpen, onSave, onNew, onExport }: Props) {
  const store = useEditorStore();
  const rf = useReactFlow<PipelineFlowNode>();
  const name = useEditor((s) => s.doc.graph.name);
  const dirty = useEditor(selectDirty);
  const canUndo = useEditor(selectCanUndo);
  const canRedo = useEditor(selectCanRedo);
  const theme = useEditor((s) => s.ui.theme);
  const connected = useEditor((s) => s.run.connected);
  const a = useEditor((s) => s.actions);
  const layout = () => {
    const s = store.getState();
    a.moveNodes(autoLayout(s.doc.graph, s.ui.measured, canvasView()));
    requestAnimationFrame(() => fitLegible(rf, 200));
  };
  return (
    <header className="toolbar">
      <span className="brand">◆ Ensemble Studio</span>
      <label className="graph-picker">
        <span className="sr-only">Open graph</span>
        <select
          aria-label="Open graph"
          value={graphs.some((g) => g.name === name) ? name : ''}
          onChange={(e) => e.target.value && onOpen(e.target.value)}
        >
          {!graphs.some((g) => g.name === name) && <option value="">{name} (not saved)</option>}
          {graphs.map((g) => (
            <option key={g.name} value={g.name} title={g.description}>
              {g.name}
            </option>
          ))}
        </select>
      </label>
      <span className={`dirty ${dirty ? 'on' : ''}`} title={dirty ? 'Unsaved changes' : 'Saved'}>
        {dirty ? '● unsaved' : 'saved'}
      </span>
      <div className="tb-group">
        <button onClick={onNew} title="New empty graph">
          New
        </button>
        <button onClick={onSave} title="Save to the repository (Ctrl+S)" className={dirty ? 'primary' : ''}>
          Save
        </button>
      </div>
      <div className="tb-group">
        <button onClick={a.undo} disabled={!canUndo} title="Undo (Ctrl+Z)" aria-label="Undo">
          ↶
        </button>
        <button onClick={a.redo} disabled={!canRedo} title="Redo (Ctrl+Shift+Z)" aria-label="Redo">
          ↷
        </button>
        <button onClick={layout} title="Auto-layout (L)">
          Auto-layout
        </button>
        <button onClick={() => fitLegible(rf, 200)} title="Fit view (F)">
          Fit
        </button>
      </div>
      <div className="tb-group">
        <button onClick={() => a.setPanel('preview')} title="config.pbtxt / model.py preview">
          Preview
        </button>
        <button onClick={onExport} title="Download the Triton model repository (.zip)">
          Export .zip
        </button>
        <button className="run-btn" onClick={() => a.setPanel('run')} title="Open the run panel">
          ▶ Run
        </button>
      </div>
      <span className="spacer" />
      <span
        className={`conn ${connected ? 'on' : ''}`}
        title={connected ? 'Connected to the engine' : 'Engine socket disconnected'}
      >
        {connected ? 'engine ●' : 'engine ○'}
      </span>
      <button
        onClick={() => a.setTheme(theme === 'dark' ? 'light' : 'dark')}
        title="Toggle theme"
        aria-label="Toggle theme"
      >
        {theme === 'dark' ? '☀' : '☾'}
      </button>
      <button onClick={() => a.toggleHelp(true)} title="Keyboard shortcuts (?)" aria-label="Help">
        ?
      </button>
    </header>
  );
}
