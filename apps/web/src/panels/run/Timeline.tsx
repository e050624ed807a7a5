import type { NodeTiming } from '@ensemble-studio/core';
import type { RunRecord } from '../../store/types.ts';

/** A per-node Gantt: queue wait (light) then compute (solid), batch size when batched. */
export function Timeline({ timings, total }: { timings: NodeTiming[]; total: number }) {
  const end = Math.max(total, ...timings.map((t) => t.endMs), 1);
  const sorted = [...timings].sort((a, b) => a.startMs - b.startMs);
  return (
    <div className="timeline">
      {sorted.map((t) => {
        const queueStart = t.startMs - t.queueMs;
        return (
          <div key={t.nodeId} className="tl-row" title={`${t.nodeId}: queued ${t.queueMs.toFixed(1)} ms, computed ${t.computeMs.toFixed(1)} ms${t.instance ? ` on ${t.instance}` : ''}`}>
            <span className="tl-name">{t.nodeId}</span>
            <span className="tl-track">
              <span className="tl-queue" style={{ left: `${(Math.max(0, queueStart) / end) * 100}%`, width: `${(t.queueMs / end) * 100}%` }} />
              <span className="tl-compute" style={{ left: `${(t.startMs / end) * 100}%`, width: `${Math.max(0.5, ((t.endMs - t.startMs) / end) * 100)}%` }} />
            </span>
            <span className="tl-ms">{t.computeMs.toFixed(1)}{t.batchSize && t.batchSize > 1 ? ` ×${t.batchSize}` : ''}</span>
          </div>
        );
      })}
    </div>
  );
}

/** The last runs side by side: status and total time. */
export function RunHistory({ records }: { records: RunRecord[] }) {
  if (records.length < 2) return null;
  return (
    <table className="run-history small">
      <thead><tr><th>run</th><th>status</th><th>total</th><th>nodes</th></tr></thead>
      <tbody>{records.map((r) => <tr key={r.runId}><td className="mono">{r.runId.slice(-6)}</td><td>{r.status}</td><td>{r.totalMs.toFixed(1)} ms</td><td>{r.timings.length}</td></tr>)}</tbody>
    </table>
  );
}
