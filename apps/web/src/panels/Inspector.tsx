import { memo, useMemo } from 'react';
import { KIND_DEFS, nodeById, opDef, outputNodes } from '@ensemble-studio/core';
import type { GraphNode } from '@ensemble-studio/core';
import { useActions, useEditor } from '../store/useEditor.ts';
import { selectDiagnostics, selectSingleNode } from '../store/selectors.ts';
import { ConditionForm } from './inspector/ConditionForm.tsx';
import { ParamField, TextField } from './inspector/Field.tsx';
import { GraphForm } from './inspector/GraphForm.tsx';
import { ModelSettingsForm } from './inspector/ModelSettingsForm.tsx';
import { ModelSource } from './inspector/ModelSource.tsx';
import { TensorForm } from './inspector/TensorForm.tsx';
import { nodeTitle } from '../nodes/nodeText.ts';

/** Edits the selected node; with nothing (or several) selected, the graph itself. */
export function Inspector() {
  const id = useEditor(selectSingleNode);
  const node = useEditor((s) => (id ? nodeById(s.doc.graph, id) : undefined));
  const count = useEditor((s) => s.ui.selection.nodes.length);
  if (!node) {
    return count > 1 ? (
      <div className="inspector-body">
        <h3>{count} nodes selected</h3>
        <p className="muted small">Ctrl+C / Ctrl+V copies them, Delete removes them, L lays the graph out.</p>
      </div>
    ) : (
      <GraphForm />
    );
  }
  return <NodeInspector node={node} />;
}

/** A drag replaces the node object on every frame with only its position changed: the form does not show it. */
const samePlacedNode = (a: { node: GraphNode }, b: { node: GraphNode }) =>
  a.node === b.node ||
  (a.node.id === b.node.id &&
    a.node.kind === b.node.kind &&
    a.node.label === b.node.label &&
    a.node.params === b.node.params);

const NodeInspector = memo(function NodeInspector({ node }: { node: GraphNode }) {
  const a = useActions();
  const catalogue = useEditor((s) => s.catalogue);
  const diagnostics = useEditor(selectDiagnostics);
  const outputs = useEditor((s) =>
    outputNodes(s.doc.graph)
      .map((o) => o.params.name)
      .join('\n'),
  );
  const mine = useMemo(() => diagnostics.filter((d) => d.nodeId === node.id), [diagnostics, node.id]);
  const onParams = (p: Record<string, unknown>) => a.setParams(node.id, p);
  return (
    <div className="inspector-body" data-node={node.id}>
      <h3>
        <span className={`kind-badge kind-${node.kind}`}>{node.kind}</span> {nodeTitle(node)}
      </h3>
      <p className="muted small">
        {node.kind === 'op' ? opDef(node.params.op)?.description : KIND_DEFS[node.kind].description}{' '}
        <i>Compiles to: {KIND_DEFS[node.kind].compilesTo}.</i>
      </p>
      <TextField
        label="Label"
        name="label"
        value={node.label ?? ''}
        placeholder={node.id}
        onCommit={(v) => a.setLabel(node.id, v)}
      />
      {(node.kind === 'input' || node.kind === 'output') && <TensorForm node={node} onParams={onParams} />}
      {node.kind === 'model' && catalogue.models[node.params.model] && (
        <ModelSource nodeId={node.id} model={catalogue.models[node.params.model]!} settings={node.params.settings} />
      )}
      {node.kind === 'model' && (
        <ModelSettingsForm
          node={node}
          model={catalogue.models[node.params.model]}
          models={Object.keys(catalogue.models)
            .filter((m) => catalogue.models[m]?.platform !== 'ensemble')
            .sort()}
          onParams={onParams}
        />
      )}
      {node.kind === 'router' &&
        KIND_DEFS.router.params.map((spec) => (
          <ParamField
            key={spec.name}
            spec={spec}
            value={node.params[spec.name as 'mode' | 'count']}
            onCommit={(v) => onParams({ [spec.name]: v })}
          />
        ))}
      {node.kind === 'condition' && (
        <ConditionForm
          node={node}
          diagnostics={mine}
          outputs={outputs ? outputs.split('\n') : []}
          onParams={onParams}
        />
      )}
      {node.kind === 'op' &&
        (opDef(node.params.op)?.params ?? []).map((spec) => (
          <ParamField
            key={spec.name}
            spec={spec}
            value={node.params.values[spec.name]}
            error={mine.find((d) => d.code === 'invalid-param' && d.message.includes(spec.name))?.message}
            onCommit={(v) => onParams({ values: { ...node.params.values, [spec.name]: v } })}
          />
        ))}
      {mine.length > 0 && (
        <div className="node-problems">
          <h4>Problems</h4>
          {mine.map((d, i) => (
            <div key={i} className={`problem sev-${d.severity}`}>
              <div>{d.message}</div>
              {d.fix && <div className="fix">→ {d.fix}</div>}
            </div>
          ))}
        </div>
      )}
    </div>
  );
}, samePlacedNode);
