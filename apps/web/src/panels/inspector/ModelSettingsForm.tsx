import type { CatalogueModel, DeepReadonly, ModelNode, NodeSettings, SequenceBatching } from '@ensemble-studio/core';
import { formatShape, schedulingOf } from '@ensemble-studio/core';
import { CheckField, NumberField, SelectField, TextField } from './Field.tsx';
import { formatDims, parseDims } from './dims.ts';

interface Props {
  node: ModelNode;
  model: CatalogueModel | undefined;
  models: string[];
  onParams(p: Record<string, unknown>): void;
}

/** Edits the model's config.pbtxt through the node: batching, instances, sequences, decoupled. */
export function ModelSettingsForm({ node, model, models, onParams }: Props) {
  const st: NodeSettings = node.params.settings ?? {};
  const cfg = model?.config;
  const set = (patch: Partial<NodeSettings>) => {
    const next: Record<string, unknown> = { ...st, ...patch };
    for (const k of Object.keys(next)) if (next[k] === undefined) delete next[k];
    onParams({ settings: next });
  };
  const scheduling = cfg ? schedulingOf(cfg, st) : undefined;
  const group = scheduling?.instanceGroup?.[0] ?? st.instance_group?.[0] ?? { count: 1, kind: 'KIND_CPU' };
  const dyn = scheduling ? scheduling.dynamicBatching : st.dynamic_batching || undefined;
  const seq: DeepReadonly<SequenceBatching> | undefined = scheduling
    ? scheduling.sequenceBatching
    : st.sequence_batching || undefined;
  return (
    <>
      <SelectField
        label="Model"
        name="model"
        value={node.params.model}
        options={models.includes(node.params.model) ? models : [node.params.model, ...models]}
        onCommit={(m) => onParams({ model: m })}
      />
      {model?.error && <p className="field-error">{model.error}</p>}
      {model && (
        <div className="sig small">
          {model.inputs.map((t) => (
            <div key={`i${t.name}`}>
              → {t.name} {t.datatype} {formatShape(t.dims)}
            </div>
          ))}
          {model.outputs.map((t) => (
            <div key={`o${t.name}`}>
              ← {t.name} {t.datatype} {formatShape(t.dims)}
            </div>
          ))}
        </div>
      )}
      <h4>Batching &amp; instances</h4>
      <NumberField
        label="max_batch_size"
        name="max_batch_size"
        min={0}
        step={1}
        value={scheduling?.maxBatchSize ?? st.max_batch_size}
        onCommit={(v) => set({ max_batch_size: v })}
      />
      <div className="row">
        <NumberField
          label="Instances"
          name="instance_count"
          min={1}
          step={1}
          value={group.count ?? 1}
          onCommit={(v) => set({ instance_group: [{ ...group, count: v ?? 1 }] })}
        />
        <SelectField
          label="Kind"
          name="instance_kind"
          value={group.kind ?? 'KIND_CPU'}
          options={['KIND_CPU', 'KIND_GPU', 'KIND_AUTO']}
          onCommit={(k) => set({ instance_group: [{ ...group, kind: k as 'KIND_CPU' }] })}
        />
      </div>
      <CheckField
        label="Dynamic batching"
        name="dynamic_batching"
        value={!!dyn}
        onCommit={(on) => set({ dynamic_batching: on ? { max_queue_delay_microseconds: 100 } : null })}
      />
      {dyn && (
        <div className="row">
          <TextField
            label="Preferred sizes"
            name="preferred_batch_size"
            value={formatDims(dyn.preferred_batch_size ?? [])}
            onCommit={(t) =>
              set({ dynamic_batching: { ...dyn, preferred_batch_size: parseDims(t)?.filter((d) => d > 0) ?? [] } })
            }
          />
          <NumberField
            label="Max queue delay µs"
            name="max_queue_delay"
            min={0}
            step={1}
            value={dyn.max_queue_delay_microseconds ?? 0}
            onCommit={(v) => set({ dynamic_batching: { ...dyn, max_queue_delay_microseconds: v ?? 0 } })}
          />
        </div>
      )}
      <h4>Sequences &amp; streaming</h4>
      <CheckField
        label="Sequence batching (stateful)"
        name="sequence_batching"
        value={!!seq}
        onCommit={(on) =>
          set({ sequence_batching: on ? { direct: {}, max_sequence_idle_microseconds: 5_000_000 } : null })
        }
      />
      {seq && <SequenceForm seq={seq} onChange={(s) => set({ sequence_batching: s })} />}
      <CheckField
        label="Decoupled (0..n responses per request)"
        name="decoupled"
        value={scheduling?.decoupled ?? st.decoupled ?? false}
        onCommit={(v) => set({ decoupled: v })}
      />
    </>
  );
}

function SequenceForm({
  seq,
  onChange,
}: {
  seq: DeepReadonly<SequenceBatching>;
  onChange(s: DeepReadonly<SequenceBatching>): void;
}) {
  const strategy = seq.oldest ? 'oldest' : 'direct';
  return (
    <>
      <div className="row">
        <SelectField
          label="Strategy"
          name="sequence_strategy"
          value={strategy}
          options={['direct', 'oldest']}
          onCommit={(v) => {
            const { direct: _d, oldest: _o, ...rest } = seq;
            onChange(v === 'oldest' ? { ...rest, oldest: { max_candidate_sequences: 64 } } : { ...rest, direct: {} });
          }}
        />
        <NumberField
          label="Idle timeout µs"
          name="idle_timeout"
          min={0}
          step={1}
          value={seq.max_sequence_idle_microseconds}
          onCommit={(v) => onChange({ ...seq, max_sequence_idle_microseconds: v })}
        />
      </div>
      {(seq.state ?? []).map((s) => (
        <div key={s.input_name} className="state-row small">
          state <b>{s.input_name}</b> → <b>{s.output_name}</b> {s.data_type} [{s.dims.join(',')}]
        </div>
      ))}
      {(seq.state ?? []).length === 0 && (
        <p className="muted small">No implicit state: clients send their own state tensors.</p>
      )}
      {(seq.control_input ?? []).map((c) => (
        <div key={c.name} className="small">
          control {c.name}: {c.control.map((k) => k.kind.replace('CONTROL_SEQUENCE_', '')).join(', ')}
        </div>
      ))}
    </>
  );
}
