import { useActions, useEditor } from '../../store/useEditor.ts';
import { NumberField, TextField } from './Field.tsx';
import { inputNodes, outputNodes, formatShape } from '@ensemble-studio/core';

/** Graph-level settings, shown when nothing is selected. */
export function GraphForm() {
  const graph = useEditor((s) => s.doc.graph);
  const a = useActions();
  const ins = inputNodes(graph);
  const outs = outputNodes(graph);
  return (
    <div className="inspector-body">
      <h3>Ensemble</h3>
      <TextField label="Name" name="graph_name" mono value={graph.name} onCommit={(v) => a.renameGraph(v.trim())} />
      <NumberField
        label="max_batch_size"
        name="graph_max_batch_size"
        min={0}
        step={1}
        value={graph.maxBatchSize}
        onCommit={(v) => a.setMaxBatchSize(v ?? 0)}
      />
      {graph.description && <p className="muted small">{graph.description}</p>}
      <h4>Inputs</h4>
      {ins.length === 0 ? (
        <p className="muted small">
          No inputs yet: drag <b>Input</b> from the palette.
        </p>
      ) : (
        ins.map((n) => (
          <button key={n.id} className="link-row" onClick={() => a.focusNode(n.id)}>
            {n.params.name}{' '}
            <span className="muted">
              {n.params.datatype} {formatShape(n.params.dims)}
            </span>
          </button>
        ))
      )}
      <h4>Outputs</h4>
      {outs.length === 0 ? (
        <p className="muted small">
          No outputs yet: drag <b>Output</b> from the palette.
        </p>
      ) : (
        outs.map((n) => (
          <button key={n.id} className="link-row" onClick={() => a.focusNode(n.id)}>
            {n.params.name}{' '}
            <span className="muted">
              {n.params.datatype} {formatShape(n.params.dims)}
            </span>
          </button>
        ))
      )}
      <p className="muted small hint">
        Select a node to edit it. {graph.nodes.length} nodes · {graph.edges.length} edges.
      </p>
    </div>
  );
}
