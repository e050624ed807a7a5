import { useRef, useState } from 'react';
import type { GraphDoc, InputNode } from '@ensemble-studio/core';
import { inputNodes } from '@ensemble-studio/core';
import { windows } from '../run/audioInput.ts';
import { useRunSocket } from '../run/RunSocketProvider.tsx';
import type { Inputs, RunSocket } from '../run/runSocket.ts';
import { useEditor, useEditorStore } from '../store/useEditor.ts';
import type { EditorState } from '../store/types.ts';
import { InputEditor } from './run/InputEditor.tsx';
import { RunOutputs } from './run/RunOutputs.tsx';
import type { PreparedInput } from './run/prepare.ts';

/** True when a model of the graph is stateful: inputs are then sent as a sequence, chunk by chunk. */
function isStreaming(s: EditorState): boolean {
  return s.doc.graph.nodes.some((n) => n.kind === 'model'
    && (n.params.settings?.sequence_batching ?? (n.params.settings?.sequence_batching === null ? null : s.catalogue.models[n.params.model]?.config.sequence_batching)));
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function streamAudio(socket: RunSocket, graph: GraphDoc, node: InputNode, samples: Float32Array, batched: boolean, realtime: boolean, stop: { current: boolean }) {
  const streamId = socket.openStream(graph);
  const chunks = [...windows(samples)];
  for (let i = 0; i < chunks.length && !stop.current; i++) {
    const w = chunks[i]!;
    const shape = node.params.dims.map((d) => (d < 0 ? w.length : d));
    socket.append(streamId, { [node.params.name]: { datatype: 'FP32', shape: batched ? [1, ...shape] : shape, bytes: w } }, i === chunks.length - 1);
    if (realtime) await sleep(32); // 512 samples at 16 kHz: send as it plays
  }
  if (stop.current) socket.endStream(streamId);
}

/** Inputs from the graph's input tensors, Run/Stream/Cancel, and the streaming results. */
export function RunPanel() {
  const store = useEditorStore();
  const socket = useRunSocket();
  const graph = useEditor((s) => s.doc.graph);
  const streaming = useEditor(isStreaming);
  const status = useEditor((s) => s.run.status);
  const connected = useEditor((s) => s.run.connected);
  const [values, setValues] = useState<Record<string, PreparedInput | undefined>>({});
  const [realtime, setRealtime] = useState(true);
  const stop = useRef(false);
  const inputs = inputNodes(graph);
  const batched = graph.maxBatchSize > 0;
  const missing = inputs.filter((n) => !n.params.optional && !values[n.params.name]);
  const busy = status === 'starting' || status === 'running';

  const run = () => {
    if (!socket) return;
    stop.current = false;
    const audio = inputs.find((n) => values[n.params.name]?.type === 'audio');
    if (audio) {
      const v = values[audio.params.name] as Extract<PreparedInput, { type: 'audio' }>;
      void streamAudio(socket, graph, audio, v.samples, batched, realtime, stop);
      return;
    }
    const wire: Inputs = {};
    for (const [name, v] of Object.entries(values)) if (v && v.type !== 'audio') wire[name] = v.tensor;
    socket.start(graph, wire);
  };
  const cancel = () => {
    stop.current = true;
    socket?.cancel();
    store.getState().actions.notify('Cancelling…');
  };

  return (
    <div className="run-panel">
      {inputs.length === 0 && <p className="muted small">This graph has no inputs. Add an <b>Input</b> node to run it.</p>}
      {inputs.map((n) => (
        <InputEditor key={n.id} node={n} batched={batched} streaming={streaming} value={values[n.params.name]}
          onChange={(v) => setValues((old) => ({ ...old, [n.params.name]: v }))} />
      ))}
      <div className="run-actions">
        <button className="primary" disabled={!socket || missing.length > 0 || busy} onClick={run} title={missing.length ? `Provide ${missing.map((n) => n.params.name).join(', ')}` : ''}>
          {streaming ? '▶ Stream' : '▶ Run'}
        </button>
        <button disabled={!busy && !Object.values(store.getState().run.streams).some((s) => !s.ended)} onClick={cancel}>■ Cancel</button>
        {streaming && <label className="small"><input type="checkbox" checked={realtime} onChange={(e) => setRealtime(e.target.checked)} /> real time</label>}
        {!connected && <span className="field-error small">engine disconnected</span>}
      </div>
      <RunOutputs image={Object.values(values).find((v) => v?.type === 'image') as Extract<PreparedInput, { type: 'image' }> | undefined} />
    </div>
  );
}
