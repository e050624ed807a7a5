import { useEditor } from '../../store/useEditor.ts';
import type { NodeRun } from '../../store/types.ts';
import { modelFile } from '../../nodes/modelFacts.ts';
import { frameLabel, tracebackFrame } from '../../run/traceback.ts';

/** A failed Python node's traceback, with a link that opens its model.py in the inspector at the failing line. */
export function Traceback({ nodeId, run }: { nodeId: string; run: NodeRun }) {
  const file = useEditor((s) => {
    const n = s.doc.graph.nodes.find((x) => x.id === nodeId);
    const m = n?.kind === 'model' ? s.catalogue.models[n.params.model] : undefined;
    return m ? modelFile(m) : null;
  });
  const showSource = useEditor((s) => s.actions.showSource);
  if (!run.traceback) return null;
  const frame = tracebackFrame(run.traceback, file);
  const own = frame && file && frame.file.endsWith(file);
  return (
    <div className="traceback" data-testid="traceback">
      {own && (
        <button className="link small" onClick={() => showSource(nodeId, frame.line)}>
          open {frameLabel(frame)}
        </button>
      )}
      <pre className="mono">{run.traceback}</pre>
    </div>
  );
}

/** The lines the run's models wrote (`print`, stderr, `pb_utils.Logger`), newest last. */
export function RunLog() {
  const logs = useEditor((s) => s.run.logs);
  if (logs.length === 0) return null;
  return (
    <>
      <h4>Model log ({logs.length})</h4>
      <ol className="run-log mono small" data-testid="run-log">
        {logs.map((l, i) => (
          <li key={i} className={`log-${l.level}`} data-model={l.model}>
            <span className="muted">
              {l.instance}
              {l.nodeId && l.nodeId !== l.model ? ` (${l.nodeId})` : ''}
            </span>{' '}
            {l.message}
          </li>
        ))}
      </ol>
    </>
  );
}
