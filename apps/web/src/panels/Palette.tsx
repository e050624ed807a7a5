import { useMemo, useState, type DragEvent, type KeyboardEvent } from 'react';
import { useReactFlow } from '@xyflow/react';
import { KIND_DEFS, OP_DEFS, formatShape } from '@ensemble-studio/core';
import type { CatalogueModel, NodeKind, OpId } from '@ensemble-studio/core';
import { PALETTE_MIME } from '../canvas/Canvas.tsx';
import { useEditor, useEditorStore } from '../store/useEditor.ts';
import type { NodeTemplate } from '../store/types.ts';
import { dtypeColor } from '../nodes/dtypeColors.ts';
import { backendOf } from '../nodes/modelFacts.ts';

interface Item {
  key: string;
  title: string;
  detail: string;
  template: NodeTemplate;
  model?: CatalogueModel;
}

const KIND_ITEMS: NodeKind[] = ['input', 'output', 'router', 'condition'];

function items(models: CatalogueModel[]): { section: string; items: Item[] }[] {
  return [
    {
      section: 'Repository models',
      items: models.map((m) => ({
        key: `model:${m.name}`,
        title: m.name,
        detail: m.error ?? `${backendOf(m)}${m.decoupled ? ' · decoupled' : ''} · max_batch_size ${m.maxBatchSize}`,
        template: { kind: 'model', model: m.name },
        model: m,
      })),
    },
    {
      section: 'Node kinds',
      items: KIND_ITEMS.map((k) => ({
        key: `kind:${k}`,
        title: KIND_DEFS[k].title,
        detail: KIND_DEFS[k].description,
        template: { kind: k },
      })),
    },
    {
      section: 'Built-in ops',
      items: (Object.keys(OP_DEFS) as OpId[]).map((id) => ({
        key: `op:${id}`,
        title: OP_DEFS[id].title,
        detail: OP_DEFS[id].description,
        template: { kind: 'op', op: id },
      })),
    },
  ];
}

function Signature({ m }: { m: CatalogueModel }) {
  const row = (t: CatalogueModel['inputs'][number], dir: string) => (
    <div key={dir + t.name} className="sig-row">
      <span className="sig-dir">{dir}</span> {t.name}{' '}
      <span style={{ color: dtypeColor(t.datatype) }}>
        {t.datatype} {formatShape(t.dims)}
      </span>
    </div>
  );
  const python = backendOf(m) === 'python';
  return (
    <div className="sig">
      {python && <div className="pi-backend">python{m.decoupled ? ' · decoupled' : ''}</div>}
      {m.inputs.map((t) => row(t, '→'))}
      {m.outputs.map((t) => row(t, '←'))}
    </div>
  );
}

/** Models of the repository, node kinds and ops: drag onto the canvas, or focus and press Enter. */
export function Palette() {
  const catalogue = useEditor((s) => s.catalogue);
  const addNode = useEditor((s) => s.actions.addNode);
  const store = useEditorStore();
  const { screenToFlowPosition } = useReactFlow();
  const [query, setQuery] = useState('');
  const sections = useMemo(() => {
    const models = Object.values(catalogue.models).filter((m) => m.platform !== 'ensemble' && !m.generated);
    const q = query.trim().toLowerCase();
    return items(models).map((s) => ({
      ...s,
      items: s.items.filter((i) => !q || `${i.title} ${i.detail} ${i.template.op ?? ''}`.toLowerCase().includes(q)),
    }));
  }, [catalogue, query]);
  const onDragStart = (e: DragEvent, t: NodeTemplate) => {
    e.dataTransfer.setData(PALETTE_MIME, JSON.stringify(t));
    e.dataTransfer.effectAllowed = 'copy';
  };
  const addAtCentre = (t: NodeTemplate) => {
    const r = document.querySelector('.canvas')?.getBoundingClientRect();
    const p = r
      ? screenToFlowPosition({ x: r.left + r.width / 2 - 110, y: r.top + r.height / 2 - 50 })
      : { x: 0, y: 0 };
    // Cascade below what is already there, so keyboard-added nodes never stack.
    const nodes = store.getState().doc.graph.nodes;
    while (nodes.some((n) => Math.abs(n.position.x - p.x) < 240 && Math.abs(n.position.y - p.y) < 130)) p.y += 140;
    addNode(t, p);
  };
  const onKey = (e: KeyboardEvent, t: NodeTemplate) => {
    if (e.key === 'Enter' || e.key === ' ') {
      e.preventDefault();
      addAtCentre(t);
    }
  };
  return (
    <aside className="palette" aria-label="Palette">
      <input
        className="search"
        type="search"
        placeholder="Search models, kinds, ops…"
        value={query}
        onChange={(e) => setQuery(e.target.value)}
      />
      {sections.map((s) => (
        <section key={s.section}>
          <h3>{s.section}</h3>
          {s.items.length === 0 && (
            <p className="muted small">
              {s.section === 'Repository models' && !query
                ? 'No models in this repository. Start the server with --repo DIR.'
                : 'Nothing matches.'}
            </p>
          )}
          {s.items.map((i) => (
            <div
              key={i.key}
              className={`palette-item pi-${i.template.kind}${i.model?.error ? ' broken' : ''}`}
              draggable
              tabIndex={0}
              role="button"
              data-palette={i.key}
              title={`${i.detail}\nDrag onto the canvas, or press Enter`}
              onDragStart={(e) => onDragStart(e, i.template)}
              onKeyDown={(e) => onKey(e, i.template)}
              onDoubleClick={() => addAtCentre(i.template)}
            >
              <div className="pi-title">
                <span className={`kind-dot kind-${i.template.kind}`} />
                <span className="pi-name">{i.title}</span>
              </div>
              {i.model ? <Signature m={i.model} /> : <div className="pi-detail">{i.detail}</div>}
            </div>
          ))}
        </section>
      ))}
    </aside>
  );
}
