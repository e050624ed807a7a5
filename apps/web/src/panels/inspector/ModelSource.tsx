import { useEffect, useMemo, useRef, useState } from 'react';
import hljs from 'highlight.js/lib/core';
import python from 'highlight.js/lib/languages/python';
import type { CatalogueModel, ModelSettings } from '@ensemble-studio/core';
import { api } from '../../api/client.ts';
import { modelFacts } from '../../nodes/modelFacts.ts';
import { useEditor } from '../../store/useEditor.ts';

hljs.registerLanguage('python', python);

/** Must match `.source-view` line-height in styles.css: the marked line is placed by it. */
const LINE_PX = 18;

/** model.py, highlighted, with line numbers; `line` is marked and scrolled to. */
function SourceView({ text, path, line }: { text: string; path: string; line: number | null }) {
  const html = useMemo(() => hljs.highlight(text, { language: 'python' }).value, [text]);
  const lines = useMemo(() => text.split('\n').length, [text]);
  const box = useRef<HTMLDivElement>(null);
  useEffect(() => {
    if (line !== null && box.current) box.current.scrollTop = Math.max(0, (line - 1) * LINE_PX - 80);
  }, [line, html]);
  return (
    <div className="source-view" ref={box} aria-label={`${path} (read-only)`} data-line={line ?? undefined}>
      {line !== null && <div className="source-mark" style={{ top: 8 + (line - 1) * LINE_PX }} />}
      <pre className="source-gutter" aria-hidden>
        {Array.from({ length: lines }, (_, i) => i + 1).join('\n')}
      </pre>
      <pre className="source-code">
        <code className="hljs language-python" dangerouslySetInnerHTML={{ __html: html }} />
      </pre>
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
  settings?: ModelSettings;
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
