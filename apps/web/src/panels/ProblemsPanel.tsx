import { useState } from 'react';
import { useActions, useEditor } from '../store/useEditor.ts';
import { selectDiagnostics } from '../store/selectors.ts';

/** Every diagnostic of the graph (listed while there are errors, or when opened); click one to focus its node (or the edge's target). */
export function ProblemsPanel() {
  const diagnostics = useEditor(selectDiagnostics);
  const edges = useEditor((s) => s.doc.graph.edges);
  const a = useActions();
  // Until the user toggles it, the list is open exactly while there are errors: warnings alone leave the canvas its height.
  const [toggled, setOpen] = useState<boolean | null>(null);
  const errors = diagnostics.filter((d) => d.severity === 'error').length;
  const open = toggled ?? errors > 0;
  const warnings = diagnostics.length - errors;
  const focus = (d: (typeof diagnostics)[number]) => {
    if (d.nodeId) a.focusNode(d.nodeId);
    else if (d.edgeId) {
      const e = edges.find((x) => x.id === d.edgeId);
      if (e) a.focusNode(e.target);
      a.select({ nodes: e ? [e.target] : [], edges: [d.edgeId] });
    }
  };
  return (
    <section className={`problems ${open ? 'open' : ''}`} aria-label="Problems">
      <button className="problems-head" onClick={() => setOpen(!open)}>
        <b>Problems</b>
        <span className={`count err ${errors ? 'on' : ''}`}>
          {errors} error{errors === 1 ? '' : 's'}
        </span>
        <span className={`count warn ${warnings ? 'on' : ''}`}>
          {warnings} warning{warnings === 1 ? '' : 's'}
        </span>
        <span className="muted small">{open ? '▾' : '▸'}</span>
      </button>
      {open && (
        <ul className="problem-list">
          {diagnostics.length === 0 && (
            <li className="muted small ok">✓ Nothing Triton would reject. Export when ready.</li>
          )}
          {diagnostics.map((d, i) => (
            <li
              key={`${d.code}-${i}`}
              className={`problem sev-${d.severity}`}
              data-code={d.code}
              onClick={() => focus(d)}
              tabIndex={0}
              onKeyDown={(e) => e.key === 'Enter' && focus(d)}
            >
              <span className="sev">{d.severity === 'error' ? '●' : '▲'}</span>
              <span className="msg">{d.message}</span>
              {d.fix && <span className="fix">→ {d.fix}</span>}
              <span className="code muted">{d.code}</span>
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}
