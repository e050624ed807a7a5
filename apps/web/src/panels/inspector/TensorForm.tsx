import { DATA_TYPES } from '@ensemble-studio/core';
import type { InputNode, OutputNode } from '@ensemble-studio/core';
import { CheckField, SelectField, TextField } from './Field.tsx';
import { formatDims, parseDims } from './dims.ts';

/** An ensemble input/output: tensor name, dtype, dims (without the batch dim), optional. */
export function TensorForm({
  node,
  onParams,
}: {
  node: InputNode | OutputNode;
  onParams(p: Record<string, unknown>): void;
}) {
  const p = node.params;
  return (
    <>
      <TextField
        label="Tensor name"
        name="tensor_name"
        mono
        value={p.name}
        onCommit={(v) => onParams({ name: v.trim() })}
      />
      <SelectField
        label="Datatype"
        name="datatype"
        value={p.datatype}
        options={DATA_TYPES}
        onCommit={(v) => onParams({ datatype: v })}
      />
      <TextField
        label="Dims (no batch dim; -1 = variable)"
        name="dims"
        mono
        value={formatDims(p.dims)}
        onCommit={(v) => {
          const dims = parseDims(v);
          if (dims) onParams({ dims });
        }}
      />
      {node.kind === 'input' && (
        <CheckField
          label="Optional"
          name="optional"
          value={!!node.params.optional}
          onCommit={(v) => onParams({ optional: v })}
        />
      )}
    </>
  );
}
