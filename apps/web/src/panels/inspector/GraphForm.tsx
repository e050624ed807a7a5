import { useActions, useEditor } from '../../store/useEditor.ts';
import { NumberField, TextField } from './Field.tsx';
import { inputNodes, outputNodes, formatShape, type InputNode, type OutputNode } from '@ensemble-studio/core';

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
      <PortList nodes={ins} kind="Input" onFocus={a.focusNode} />
      <h4>Outputs</h4>
      <PortList nodes={outs} kind="Output" onFocus={a.focusNode} />
      <p className="muted small hint">
        Select a node to edit it. {graph.nodes.length} nodes · {graph.edges.length} edges.
      </p>
    </div>
  );
}

/** The graph's inputs or outputs, each a link to its node; a hint where there are none yet. */
function PortList(props: {
  nodes: readonly (InputNode | OutputNode)[];
  kind: 'Input' | 'Output';
  onFocus: (id: string) => void;
}) {
  if (props.nodes.length === 0)
    return (
      <p className="muted small">
        No {props.kind.toLowerCase()}s yet: drag <b>{props.kind}</b> from the palette.
      </p>
    );
  return props.nodes.map((n) => (
    <button key={n.id} className="link-row" onClick={() => props.onFocus(n.id)}>
      {n.params.name}{' '}
      <span className="muted">
        {n.params.datatype} {formatShape(n.params.dims)}
      </span>
    </button>
  ));
}
