import type { CatalogueModel } from '@ensemble-studio/core';
import type { StreamState } from '../../store/types.ts';
import { useEditor } from '../../store/useEditor.ts';
import { StreamChart } from './StreamChart.tsx';

/** What a session card can do to its own stream. */
export interface SessionControls {
  end(streamId: string): void;
  cancel(streamId: string): void;
}

/** Implicit-state names of a model, e.g. ["state → stateN"], from its catalogue config. */
const stateNames = (m: CatalogueModel | undefined): string[] =>
  (m?.config.sequence_batching?.state ?? []).map((st) => `${st.input_name} → ${st.output_name}`);

/** One sequence stream: its id, the instance holding it, the state it carries, its chart and its own End/Cancel. */
export function SessionCard({ stream: s, controls }: { stream: StreamState; controls: SessionControls }) {
  const states = stateNames(useEditor((st) => (s.model ? st.catalogue.models[s.model] : undefined)));
  const live = !s.ended;
  const mic = s.source?.startsWith('microphone') ?? false;
  return (
    <div
      className={`stream session-card${live ? ' live' : ''}`}
      data-stream={s.streamId}
      data-ended={s.ended ? 'true' : 'false'}
    >
      <div className="sc-head">
        <b>
          sequence{' '}
          <span className="mono" data-testid="sequence-id">
            {String(s.sequenceId ?? '…')}
          </span>
        </b>
        <span className="muted small">{s.source ?? s.graph}</span>
      </div>
      <dl className="sc-facts small">
        <dt>instance</dt>
        <dd>
          {s.instance ? <b data-testid="instance">{s.instance}</b> : <span className="muted">not bound yet</span>}
          {s.model ? <span className="muted"> ({s.model})</span> : null}
        </dd>
        <dt>state</dt>
        <dd data-testid="state">
          {states.length ? states.join(', ') : <span className="muted">{s.model ? 'none declared' : '…'}</span>}
          {s.acknowledged > 0 ? ` · carried over ${s.acknowledged} chunk${s.acknowledged === 1 ? '' : 's'}` : ''}
        </dd>
        <dt>chunks</dt>
        <dd>
          sent <span data-testid="sent">{s.sent}</span> / acknowledged <span data-testid="acked">{s.acknowledged}</span>
        </dd>
        {s.ended && (
          <>
            <dt>status</dt>
            <dd data-testid="ended">ended ({s.ended})</dd>
          </>
        )}
      </dl>
      <StreamChart values={s.values} />
      {live && (
        <div className="sc-actions">
          <button
            onClick={() => controls.end(s.streamId)}
            title="Stop sending; the sequence ends after the chunks already sent"
          >
            {mic ? '■ Stop' : 'End'}
          </button>
          <button onClick={() => controls.cancel(s.streamId)} title="End the sequence now">
            Cancel
          </button>
        </div>
      )}
    </div>
  );
}
