import type { ReactNode } from 'react';
import type { NodeKind } from '@ensemble-studio/core';
import type { NodeProblems } from '../store/derived.ts';
import type { NodeRun } from '../store/types.ts';

function statusText(run: NodeRun | undefined): string | null {
  if (!run) return null;
  switch (run.status) {
    case 'finished': return run.timing ? `✓ ${run.timing.computeMs.toFixed(1)} ms${run.timing.batchSize && run.timing.batchSize > 1 ? ` · batch ${run.timing.batchSize}` : ''}` : '✓ done';
    case 'running': return `running${run.instance ? ` on ${run.instance}` : ''}…`;
    case 'skipped': return `skipped: ${run.reason ?? ''}`;
    case 'failed': return `failed: ${run.reason ?? ''}`;
    case 'cancelled': return 'cancelled';
    case 'queued': return 'queued';
  }
}

interface Props { kind: NodeKind; title: string; subtitle: string; selected: boolean; run: NodeRun | undefined; problems: NodeProblems | null; children: ReactNode }

/** The chrome around a node: kind badge, title, diagnostics badge, run status. */
export function NodeFrame({ kind, title, subtitle, selected, run, problems, children }: Props) {
  const status = statusText(run);
  return (
    <div className={`node node-${kind}${selected ? ' selected' : ''}${run ? ` run-${run.status}` : ''}${problems ? ` has-${problems.severity}` : ''}`}>
      <div className="node-head">
        <span className={`kind-badge kind-${kind}`}>{kind}</span>
        <span className="node-title">{title}</span>
        {problems && (
          <span className={`diag-badge diag-${problems.severity}`} title={problems.messages.join('\n')}>
            {problems.severity === 'error' ? '!' : '⚠'}{problems.messages.length > 1 ? problems.messages.length : ''}
          </span>
        )}
      </div>
      <div className="node-sub" title={subtitle}>{subtitle}</div>
      <div className="node-ports">{children}</div>
      {status && <div className={`node-status status-${run?.status}`} title={status}>{status}</div>}
    </div>
  );
}
