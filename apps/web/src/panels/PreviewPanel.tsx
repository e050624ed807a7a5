import { useEffect, useState } from 'react';
import type { RepoFile } from '@ensemble-studio/core';
import { api } from '../api/client.ts';
import { useEditor } from '../store/useEditor.ts';
import { selectSingleNode } from '../store/selectors.ts';

/** Live config.pbtxt / model.py of the selected node, or the whole compiled repository. */
export function PreviewPanel() {
  const graph = useEditor((s) => s.doc.graph);
  const nodeId = useEditor(selectSingleNode);
  const [files, setFiles] = useState<RepoFile[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [picked, setPicked] = useState<string | null>(null);
  useEffect(() => {
    let live = true;
    const t = setTimeout(() => {
      const req = nodeId ? api.compileNode(graph, nodeId) : api.compile(graph);
      req.then(
        (r) => {
          if (live) {
            setFiles(r.files.filter((f) => f.text !== undefined));
            setError(null);
          }
        },
        (e: Error) => {
          if (live) {
            setFiles(null);
            setError(e.message);
          }
        },
      );
    }, 250);
    return () => {
      live = false;
      clearTimeout(t);
    };
  }, [graph, nodeId]);
  const file =
    files?.find((f) => f.path === picked) ?? files?.find((f) => f.path.endsWith('config.pbtxt')) ?? files?.[0];
  const copy = () => {
    if (file?.text) void navigator.clipboard.writeText(file.text);
  };
  return (
    <div className="preview">
      <p className="muted small">
        {nodeId ? `Files for node '${nodeId}'` : 'The whole repository'} — updates as you edit.
      </p>
      {error && <p className="field-error">{error}</p>}
      {files && files.length === 0 && (
        <p className="muted small">
          Nothing to generate for this node (ensemble inputs/outputs live in the ensemble's config).
        </p>
      )}
      {files && files.length > 0 && (
        <>
          <div className="file-tabs">
            {files.map((f) => (
              <button key={f.path} className={f === file ? 'on' : ''} onClick={() => setPicked(f.path)}>
                {f.path}
              </button>
            ))}
          </div>
          <div className="code-head">
            <span className="mono small">{file?.path}</span>
            <button onClick={copy} title="Copy to clipboard">
              Copy
            </button>
          </div>
          <pre className="code mono" data-file={file?.path}>
            {file?.text}
          </pre>
        </>
      )}
    </div>
  );
}
