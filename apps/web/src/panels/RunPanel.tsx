import { useState } from 'react';
import { effectiveModel, inputNodes } from '@ensemble-studio/core';
import { useRunSocket } from '../run/RunSocketProvider.tsx';
import type { Inputs } from '../run/runSocket.ts';
import { liveSessions, streamMicrophone, streamSamples } from '../run/streamSession.ts';
import { useEditor, useEditorStore } from '../store/useEditor.ts';
import type { EditorState } from '../store/types.ts';
import { InputEditor } from './run/InputEditor.tsx';
import { isStreamInput, type PreparedInput } from './run/prepare.ts';
import { RunOutputs } from './run/RunOutputs.tsx';
import type { SessionControls } from './run/SessionCard.tsx';

/** True when a model of the graph is stateful: inputs are then sent as a sequence, chunk by chunk. */
function isStreaming(s: EditorState): boolean {
  return s.doc.graph.nodes.some(
    (n) => n.kind === 'model' && effectiveModel(n, s.catalogue)?.sequenceBatching !== undefined,
  );
}

const MIC = 'microphone';

/** Inputs from the graph's input tensors, Run/Stream/Record/Cancel, and the streaming results. */
export function RunPanel() {
  const store = useEditorStore();
  const socket = useRunSocket();
  const graph = useEditor((s) => s.doc.graph);
  const streaming = useEditor(isStreaming);
  const status = useEditor((s) => s.run.status);
  const connected = useEditor((s) => s.run.connected);
  const anyOpen = useEditor((s) => Object.values(s.run.streams).some((st) => !st.ended));
  const [values, setValues] = useState<Record<string, PreparedInput | undefined>>({});
  const [realtime, setRealtime] = useState(true);
  const [exported, setExported] = useState(false);
  const recording = useEditor(
    (s) => Object.values(s.run.streams).find((st) => !st.ended && st.source?.startsWith(MIC))?.streamId ?? null,
  );
  const [micError, setMicError] = useState<string | null>(null);
  const inputs = inputNodes(graph);
  const batched = graph.maxBatchSize > 0;
  const audioNode = streaming ? inputs.find((n) => isStreamInput(n, streaming)) : undefined;
  const missing = inputs.filter((n) => !n.params.optional && !values[n.params.name]);
  const busy = status === 'starting' || status === 'running';
  const run = () => {
    if (!socket) return;
    const audio = inputs.find((n) => values[n.params.name]?.type === 'audio');
    if (audio) {
      const v = values[audio.params.name] as Extract<PreparedInput, { type: 'audio' }>;
      const s = streamSamples({ socket, graph, node: audio, batched }, v.samples, v.name, realtime, () =>
        liveSessions.delete(s.streamId),
      );
      liveSessions.set(s.streamId, s);
      return;
    }
    const wire: Inputs = {};
    for (const [name, v] of Object.entries(values)) if (v && v.type !== 'audio') wire[name] = v.tensor;
    socket.start(graph, wire, { exported });
  };
  const record = async () => {
    if (!socket || !audioNode) return;
    if (recording) {
      controls.end(recording);
      return;
    }
    setMicError(null);
    try {
      const s = await streamMicrophone({ socket, graph, node: audioNode, batched }, () =>
        liveSessions.delete(s.streamId),
      );
      liveSessions.set(s.streamId, s);
    } catch (e) {
      setMicError(`microphone: ${(e as Error).message}`);
    }
  };
  const cancel = () => {
    for (const s of [...liveSessions.values()]) s.cancel();
    socket?.cancel();
    store.getState().actions.notify('Cancelling…');
  };
  // A session this tab feeds stops its own sending and ends the stream; any other is ended on the socket.
  const controls: SessionControls = {
    end: (id) => {
      const live = liveSessions.get(id);
      if (live) live.end();
      else socket?.endStream(id);
    },
    cancel: (id) => {
      const live = liveSessions.get(id);
      if (live) live.cancel();
      else socket?.cancelStream(id);
    },
  };

  return (
    <div className="run-panel">
      {inputs.length === 0 && (
        <p className="muted small">
          This graph has no inputs. Add an <b>Input</b> node to run it.
        </p>
      )}
      {inputs.map((n) => (
        <InputEditor
          key={n.id}
          node={n}
          batched={batched}
          streaming={streaming}
          value={values[n.params.name]}
          onChange={(v) => setValues((old) => ({ ...old, [n.params.name]: v }))}
        />
      ))}
      <div className="run-actions">
        <button
          className="primary"
          disabled={!socket || missing.length > 0 || (busy && !streaming)}
          onClick={run}
          title={
            missing.length
              ? `Provide ${missing.map((n) => n.params.name).join(', ')}`
              : streaming
                ? 'Each press starts one more session'
                : ''
          }
        >
          {streaming ? '▶ Stream' : '▶ Run'}
        </button>
        {audioNode && (
          <button
            className={recording ? 'recording' : ''}
            disabled={!socket}
            onClick={() => void record()}
            title="Stream the microphone, resampled to 16 kHz, as a sequence"
          >
            {recording ? '■ Stop' : '● Record'}
          </button>
        )}
        <button disabled={!busy && !anyOpen} onClick={cancel}>
          ■ Cancel
        </button>
        {streaming && (
          <label className="small">
            <input type="checkbox" checked={realtime} onChange={(e) => setRealtime(e.target.checked)} /> real time
          </label>
        )}
        {!streaming && (
          <label
            className="small"
            title="Run the exported Triton repository: the generated model.py of routers, gates, ops and BLS in python3, exactly what Triton will run"
          >
            <input type="checkbox" checked={exported} onChange={(e) => setExported(e.target.checked)} /> as exported
          </label>
        )}
        {!connected && <span className="field-error small">engine disconnected</span>}
      </div>
      {micError && <p className="field-error small">{micError}</p>}
      <RunOutputs
        image={
          Object.values(values).find((v) => v?.type === 'image') as
            Extract<PreparedInput, { type: 'image' }> | undefined
        }
        sessions={controls}
      />
    </div>
  );
}
