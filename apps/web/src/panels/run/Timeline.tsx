import { useState } from 'react';
import type { NodeTiming } from '@ensemble-studio/core';
import type { RunRecord } from '../../store/types.ts';
import { timelineTitle } from './timelineTitle.ts';

/**
 * A per-node Gantt: queue wait (light) then compute (solid), and within a model's compute the model's own run (dark;
 * the rest is the hand-over to its instance and back); batch size when batched, and the instance.
 */
export function Timeline({ timings, total }: { timings: NodeTiming[]; total: number }) {
  const end = Math.max(total, ...timings.map((t) => t.endMs), 1);
  const sorted = [...timings].sort((a, b) => a.startMs - b.startMs);
  return (
    <div className="timeline">
      <div className="tl-legend small muted">
        <span className="tl-key tl-queue" /> queue wait <span className="tl-key tl-compute" /> compute{' '}
        <span className="tl-key tl-infer" /> the model's own run · ×n = batch size
      </div>
      {sorted.map((t) => {
        const queueStart = t.startMs - t.queueMs;
        const batched = t.batchSize !== undefined && t.batchSize > 1;
        return (
          <div key={t.nodeId} className="tl-row" data-node={t.nodeId} title={timelineTitle(t)}>
            <span className="tl-name">{t.nodeId}</span>
            <span className="tl-track">
              <span
                className="tl-queue"
                style={{ left: `${(Math.max(0, queueStart) / end) * 100}%`, width: `${(t.queueMs / end) * 100}%` }}
              />
              <span
                className="tl-compute"
                style={{
                  left: `${(t.startMs / end) * 100}%`,
                  width: `${Math.max(0.5, ((t.endMs - t.startMs) / end) * 100)}%`,
                }}
              />
              {t.inferStartMs !== undefined && t.inferEndMs !== undefined && (
                <span
                  className="tl-infer"
                  data-testid="model-run"
                  style={{
                    left: `${(t.inferStartMs / end) * 100}%`,
                    width: `${Math.max(0.3, ((t.inferEndMs - t.inferStartMs) / end) * 100)}%`,
                  }}
                />
              )}
            </span>
            <span className="tl-ms">
              {t.queueMs >= 0.05 && <span className="muted">{t.queueMs.toFixed(1)}+</span>}
              {t.computeMs.toFixed(1)}
              {batched && (
                <b className="tl-batch" data-testid="batch-size">
                  {' '}
                  ×{t.batchSize}
                </b>
              )}
            </span>
          </div>
        );
      })}
    </div>
  );
}

/** The last runs: status, total, queue vs compute; pick one to see its timeline beside the current. */
export function RunHistory({ records }: { records: RunRecord[] }) {
  const [picked, setPicked] = useState<string | null>(null);
  if (records.length < 2) return null;
  const shown = records.find((r) => r.runId === picked);
  const sum = (r: RunRecord, k: 'queueMs' | 'computeMs') => r.timings.reduce((a, t) => a + t[k], 0);
  return (
    <>
      <h4>Last runs</h4>
      <table className="run-history small">
        <thead>
          <tr>
            <th>run</th>
            <th>status</th>
            <th>total</th>
            <th>queue Σ</th>
            <th>compute Σ</th>
            <th>max batch</th>
          </tr>
        </thead>
        <tbody>
          {records.map((r) => (
            <tr
              key={r.runId}
              className={r.runId === picked ? 'picked' : ''}
              onClick={() => setPicked(r.runId === picked ? null : r.runId)}
              title="Show this run's timeline"
            >
              <td className="mono">{r.runId.slice(-6)}</td>
              <td>{r.status}</td>
              <td>{r.totalMs.toFixed(1)} ms</td>
              <td>{sum(r, 'queueMs').toFixed(1)} ms</td>
              <td>{sum(r, 'computeMs').toFixed(1)} ms</td>
              <td>{Math.max(1, ...r.timings.map((t) => t.batchSize ?? 1))}</td>
            </tr>
          ))}
        </tbody>
      </table>
      {shown && (
        <div className="tl-compare" data-testid="compare">
          <div className="small muted">run {shown.runId.slice(-6)}</div>
          <Timeline timings={shown.timings} total={shown.totalMs} />
        </div>
      )}
    </>
  );
}
