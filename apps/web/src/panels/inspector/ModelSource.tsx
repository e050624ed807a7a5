import { useEffect, useMemo, useRef, useState } from 'react';
import hljs from 'highlight.js/lib/core';
import python from 'highlight.js/lib/languages/python';
import type { CatalogueModel, NodeSettings } from '@ensemble-studio/core';
import { api } from '../../api/client.ts';
import { modelFacts } from '../../nodes/modelFacts.ts';
import { useEditor } from '../../store/useEditor.ts';
import { highlightLines } from './highlightLines.ts';

hljs.registerLanguage('python', python);

/** Continuation rows of a wrapped line start this far in at most, so deeply nested code keeps a usable width. */
const MAX_HANG_CH = 8;

/**
 * A line's leading spaces become its indentation, and the rows it wraps onto hang under its code (up to
 * `MAX_HANG_CH`) instead of starting at the margin.
 */
function Indented({ html }: { html: string }) {
  const indent = /^ */.exec(html)![0].length;
  const hang = Math.min(indent + 2, MAX_HANG_CH);
  return (
    <span
      style={{ paddingLeft: `${hang}ch`, textIndent: `${indent - hang}ch` }}
      dangerouslySetInnerHTML={{ __html: html.slice(indent) }}
    />
  );
}

/** model.py, highlighted, one row per line (a long line wraps under itself); `line` is marked and scrolled to. */
function SourceView({ text, path, line }: { text: string; path: string; line: number | null }) {
  const rows = useMemo(() => highlightLines(hljs.highlight(text, { language: 'python' }).value), [text]);
  const box = useRef<HTMLDivElement>(null);
  useEffect(() => {
    const row = box.current?.querySelector<HTMLElement>('.source-mark');
    if (row && box.current) box.current.scrollTop = Math.max(0, row.offsetTop - 80);
  }, [line, rows]);
  return (
    <div className="source-view" ref={box} aria-label={`${path} (read-only)`} data-line={line ?? undefined}>
      <code className="hljs language-python">
        {rows.map((html, i) => (
          <span key={i} className={`source-line${line === i + 1 ? ' source-mark' : ''}`} data-n={i + 1}>
            <Indented html={html} />
          </span>
        ))}
      </code>
    </div>
  );
}

/** A model node's backend and file; for a Python model, its model.py read-only, opened at a traceback's line on request. */
export function ModelSource({
  nodeId,
  model,
  settings,
}: {
  nodeId: string;
  model: CatalogueModel;
  settings?: NodeSettings;
}) {
  const facts = modelFacts(model, settings)!;
  const request = useEditor((s) => (s.ui.source?.nodeId === nodeId ? s.ui.source : null));
  const [open, setOpen] = useState(request !== null);
  const [shownRequest, setShownRequest] = useState(request);
  if (request !== shownRequest) {
    setShownRequest(request);
    if (request) setOpen(true);
  }
  const [source, setSource] = useState<
    { name: string; path: string; text: string } | { name: string; error: string } | null
  >(null);
  useEffect(() => {
    if (!open || source?.name === model.name) return;
    api.modelSource(model.name).then(
      (r) => setSource({ name: model.name, path: r.path, text: r.text }),
      (e: Error) => setSource({ name: model.name, error: e.message }),
    );
  }, [open, model.name, source]);
  const python = facts.backend === 'python';
  return (
    <div className="model-source" data-backend={facts.backend}>
      <dl className="model-facts small">
        <dt>Backend</dt>
        <dd data-testid="model-backend">
          {facts.backend}
          {facts.decoupled ? ' · decoupled' : ''}
          {facts.sequence ? ` · sequence (${facts.sequence})` : ''}
        </dd>
        {facts.file && (
          <>
            <dt>File</dt>
            <dd className="mono" data-testid="model-file">
              {facts.file}
            </dd>
          </>
        )}
      </dl>
      {python && (
        <button className="small" onClick={() => setOpen(!open)} aria-expanded={open}>
          {open ? 'Hide model.py' : 'View model.py'}
        </button>
      )}
      {open &&
        source?.name === model.name &&
        ('error' in source ? (
          <p className="field-error small">{source.error}</p>
        ) : (
          <SourceView text={source.text} path={source.path} line={request?.line ?? null} />
        ))}
    </div>
  );
}
