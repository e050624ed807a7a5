import type { ReactNode } from 'react';
import type { NodeKind } from '@ensemble-studio/core';
import type { NodeProblems } from '../store/derived.ts';
import type { NodeRun } from '../store/types.ts';
import type { ModelFacts } from './modelFacts.ts';
import { frameLabel, tracebackFrame } from '../run/traceback.ts';

function statusText(run: NodeRun | undefined, file: string | null): string | null {
  if (!run) return null;
  switch (run.status) {
    case 'finished':
      return run.timing
        ? `✓ ${run.timing.computeMs.toFixed(1)} ms${run.timing.batchSize && run.timing.batchSize > 1 ? ` · batch ${run.timing.batchSize}` : ''}`
        : '✓ done';
    case 'running':
      return `running${run.instance ? ` on ${run.instance}` : ''}…`;
    case 'skipped':
      return `skipped: ${run.reason ?? ''}`;
    case 'failed': {
      const frame = run.traceback ? tracebackFrame(run.traceback, file) : null;
      return `failed${frame ? ` at ${frameLabel(frame)}` : ''}: ${run.reason ?? ''}`;
    }
    case 'cancelled':
      return 'cancelled';
    case 'queued':
      return 'queued';
  }
}

/** A model's backend, and its file's name when it is a Python model (the full path in the tooltip and inspector). */
function Backend({ facts }: { facts: ModelFacts }) {
  const file = facts.file?.split('/').at(-1);
  return (
    <span className={`fact backend-${facts.backend}`} title={`model · ${facts.file ?? facts.backend}`}>
      {facts.backend}
      {facts.backend === 'python' && file ? ` · ${file}` : ''}
    </span>
  );
}

/** Chips for a decoupled or stateful model. */
function Chips({ facts }: { facts: ModelFacts }) {
  if (!facts.decoupled && !facts.sequence) return null;
  return (
    <div className="node-facts">
      {facts.decoupled && (
        <span className="fact chip" title="Decoupled: sends any number of responses per request">
          decoupled
        </span>
      )}
      {facts.sequence && (
        <span className="fact chip" title={`Sequence batching (${facts.sequence}): keeps state per stream`}>
          sequence · {facts.sequence}
        </span>
      )}
    </div>
  );
}

interface Props {
  kind: NodeKind;
  title: string;
  subtitle: string;
  model: ModelFacts | null;
  selected: boolean;
  run: NodeRun | undefined;
  problems: NodeProblems | null;
  children: ReactNode;
}

/** The chrome around a node: title, kind and subtitle, model facts, diagnostics badge, ports, run status. */
export function NodeFrame({ kind, title, subtitle, model, selected, run, problems, children }: Props) {
  const status = statusText(run, model?.file ?? null);
  return (
    <div
      className={`node node-${kind} kind-${kind}${selected ? ' selected' : ''}${run ? ` run-${run.status}` : ''}${problems ? ` has-${problems.severity}` : ''}`}
    >
      <div className="node-head">
        <span className="node-title" title={title}>
          {title}
        </span>
        {problems && (
          <span className={`diag-badge diag-${problems.severity}`} title={problems.messages.join('\n')}>
            {problems.severity === 'error' ? '!' : '⚠'}
            {problems.messages.length > 1 ? problems.messages.length : ''}
          </span>
        )}
      </div>
      <div className="node-line">
        {model ? <Backend facts={model} /> : <span className="node-kind">{kind}</span>}
        {subtitle && (
          <span className="node-sub" title={subtitle}>
            {subtitle}
          </span>
        )}
      </div>
      {model && <Chips facts={model} />}
      <div className="node-ports">{children}</div>
      {status && (
        <div className={`node-status status-${run?.status}`} title={status}>
          {status}
        </div>
      )}
    </div>
  );
}
