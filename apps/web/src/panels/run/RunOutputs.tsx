import { formatShape } from '@ensemble-studio/core';
import type { TensorSummary } from '@ensemble-studio/core';
import { useEditor } from '../../store/useEditor.ts';
import { ImageBoxes } from './ImageBoxes.tsx';
import { findBoxes, findTexts, runTensors } from './outputs.ts';
import type { PreparedInput } from './prepare.ts';
import { Heatmap } from './Heatmap.tsx';
import { SessionCard, type SessionControls } from './SessionCard.tsx';
import { findTopK, heatmapOf } from './tensorViews.ts';
import { RunHistory, Timeline } from './Timeline.tsx';
import { TopKTable } from './TopKTable.tsx';
import { RunLog, Traceback } from './RunLog.tsx';

const fmt = (v: number | undefined) =>
  v === undefined ? '–' : Math.abs(v) >= 1000 || (v !== 0 && Math.abs(v) < 0.001) ? v.toExponential(2) : v.toFixed(3);

function TensorStats({ name, t }: { name: string; t: TensorSummary }) {
  const map = heatmapOf(t);
  return (
    <div className="tensor-stat small">
      <span className="mono">{name}</span>{' '}
      <span className="muted">
        {t.datatype} {formatShape(t.shape)}
      </span>
      {t.min !== undefined && (
        <span>
          {' '}
          min {fmt(t.min)} · max {fmt(t.max)} · mean {fmt(t.mean)}
        </span>
      )}
      <div className="mono muted preview-vals">
        {t.preview.slice(0, 8).map(String).join(', ')}
        {t.preview.length > 8 ? ', …' : ''}
      </div>
      {map && <Heatmap name={name} map={map} />}
    </div>
  );
}

/** What the run has produced so far, typed by what it is; updates as each event arrives. */
export function RunOutputs({
  image,
  sessions,
}: {
  image: Extract<PreparedInput, { type: 'image' }> | undefined;
  sessions: SessionControls;
}) {
  const run = useEditor((s) => s.run);
  const graph = useEditor((s) => s.doc.graph);
  const catalogue = useEditor((s) => s.catalogue);
  const topk = findTopK(run, graph, catalogue);
  const tensors = runTensors(run);
  const boxes = findBoxes(tensors);
  const texts = findTexts(tensors);
  const streams = Object.values(run.streams);
  const order = graph.nodes.map((n) => n.id).filter((id) => run.nodes[id]);
  const timings = order.flatMap((id) => (run.nodes[id]?.timing ? [run.nodes[id].timing] : []));
  if (run.status === 'idle' && streams.length === 0 && run.logs.length === 0)
    return (
      <p className="muted small">
        Provide the inputs and press Run: nodes light up on the canvas as they run, and results appear here as they
        arrive.
      </p>
    );
  return (
    <div className="run-outputs">
      <div className={`run-status st-${run.status}`} data-status={run.status}>
        <b>{run.status}</b>
        {run.totalMs !== null && run.status === 'completed' ? ` in ${run.totalMs.toFixed(1)} ms` : ''}
        {run.message && <div className="small">{run.message}</div>}
      </div>
      {streams.length > 0 && (
        <div className="sessions">
          {streams.map((s) => (
            <SessionCard key={s.streamId} stream={s} controls={sessions} />
          ))}
        </div>
      )}
      {image && <ImageBoxes url={image.url} width={image.width} height={image.height} boxes={boxes} />}
      {texts && (
        <table className="texts small" data-testid="texts">
          <thead>
            <tr>
              <th>#</th>
              <th>text</th>
              <th>confidence</th>
            </tr>
          </thead>
          <tbody>
            {texts.map((t, i) => (
              <tr key={i}>
                <td>{i}</td>
                <td>{t.text}</td>
                <td>{t.score === undefined ? '' : t.score.toFixed(3)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {topk.map((t) => (
        <TopKTable key={t.nodeId} topk={t} />
      ))}
      {run.partials.length > 0 && (
        <details className="small">
          <summary>{run.partials.length} partial response(s)</summary>
          {run.partials.map((p, i) => (
            <div key={i}>
              #{p.index} {p.nodeId}
              {p.chunk !== undefined ? ` chunk ${p.chunk}` : ''}: {Object.keys(p.outputs).join(', ')}
            </div>
          ))}
        </details>
      )}
      <h4>Nodes</h4>
      <ul className="node-events small">
        {order.map((id) => {
          const n = run.nodes[id]!;
          return (
            <li key={id} className={`ne ne-${n.status}`} data-node={id} data-status={n.status}>
              <b>{id}</b> {n.status}
              {n.timing ? ` · ${n.timing.computeMs.toFixed(1)} ms` : ''}
              {n.reason ? ` — ${n.reason}` : ''}
              {n.outputs && Object.entries(n.outputs).map(([k, t]) => <TensorStats key={k} name={k} t={t} />)}
              {n.traceback && <Traceback nodeId={id} run={n} />}
            </li>
          );
        })}
      </ul>
      <RunLog />
      {timings.length > 0 && (
        <>
          <h4>Timeline</h4>
          <Timeline timings={timings} total={run.totalMs ?? 0} />
        </>
      )}
      <RunHistory records={run.records} />
    </div>
  );
}
