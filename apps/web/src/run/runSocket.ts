import type { ClientMessage, DataType, GraphDoc, ServerMessage, WireTensor } from '@ensemble-studio/core';
import type { EditorStore } from '../store/createEditorStore.ts';

/** A tensor the browser sends: JSON data, or raw little-endian bytes (sent as a binary frame). */
export type BrowserTensor = WireTensor | { datatype: DataType; shape: number[]; bytes: ArrayBufferView };
export type Inputs = Record<string, BrowserTensor>;

/** Splits inputs into the wire form (`binary: i`) and the frames that follow the message. */
function encodeInputs(inputs: Inputs): { wire: Record<string, WireTensor>; frames: Uint8Array[] } {
  const wire: Record<string, WireTensor> = {};
  const frames: Uint8Array[] = [];
  for (const [name, t] of Object.entries(inputs)) {
    if ('bytes' in t) {
      wire[name] = { datatype: t.datatype, shape: t.shape, binary: frames.length };
      frames.push(new Uint8Array(t.bytes.buffer, t.bytes.byteOffset, t.bytes.byteLength));
    } else wire[name] = t;
  }
  return { wire, frames };
}

/** The browser end of `/ws`: the only writer of run state (edits and undo never touch a run's results). */
export interface RunSocket {
  /** `exported`: run the graph's exported repository (its generated model.py files) instead of the TypeScript ops. */
  start(graph: GraphDoc, inputs: Inputs, opts?: { exported?: boolean }): string;
  cancel(): void;
  /** Opens a sequence stream; `source` names where its data comes from (a file, the microphone). */
  openStream(graph: GraphDoc, source?: string): string;
  append(streamId: string, inputs: Inputs, end?: boolean): void;
  endStream(streamId: string): void;
  /** Ends one stream now, whatever it still had to send, and marks it cancelled. */
  cancelStream(streamId: string): void;
  /** Whether the stream has ended (END processed, cancelled, or ended by the server: failed, idle). */
  streamEnded(streamId: string): boolean;
  close(): void;
}

let seq = 0;
const newId = (prefix: string) => `${prefix}-${Date.now().toString(36)}-${(++seq).toString(36)}`;

function socketUrl(): string {
  const { protocol, host } = window.location;
  return `${protocol === 'https:' ? 'wss' : 'ws'}://${host}/ws`;
}

/**
 * Connects to the studio's WebSocket (reconnecting after a drop) and folds every server message
 * into the store's run slice. Messages sent while connecting are queued.
 * @example const socket = createRunSocket(store); socket.start(graph, { image: tensor })
 */
export function createRunSocket(store: EditorStore): RunSocket {
  let ws: WebSocket | null = null;
  let closed = false;
  let retry = 500;
  const queue: (string | Uint8Array)[] = [];
  const actions = () => store.getState().actions;

  const connect = () => {
    const sock = new WebSocket(socketUrl());
    ws = sock;
    sock.onopen = () => {
      retry = 500;
      actions().setConnected(true);
      for (const m of queue.splice(0)) sock.send(m as string);
    };
    sock.onmessage = (ev) => {
      if (typeof ev.data !== 'string') return;
      try {
        const msg = JSON.parse(ev.data) as ServerMessage;
        actions().receive(msg);
        if (msg.type === 'notice') actions().notify(msg.message, msg.level === 'warning' ? 'error' : 'info');
      } catch {
        actions().notify('the server sent a message the studio could not read', 'error');
      }
    };
    sock.onclose = () => {
      actions().setConnected(false);
      if (!closed) setTimeout(connect, (retry = Math.min(retry * 2, 8000)));
    };
  };
  connect();

  // Binary frames follow their message immediately; the socket keeps the order.
  const send = (m: ClientMessage, frames: Uint8Array[] = []) => {
    const parts = [JSON.stringify(m), ...frames];
    if (ws && ws.readyState === WebSocket.OPEN) for (const p of parts) ws.send(p as string);
    else queue.push(...parts);
  };
  // A saved graph with no unsaved edits runs by name; otherwise the document itself is sent.
  const graphRef = (graph: GraphDoc): string | GraphDoc => {
    const s = store.getState();
    return s.doc.saved === graph ? graph.name : graph;
  };

  return {
    start(graph, inputs, opts = {}) {
      const requestId = newId('req');
      actions().beginRun(requestId);
      const { wire, frames } = encodeInputs(inputs);
      send(
        {
          type: 'run.start',
          requestId,
          graph: graphRef(graph),
          inputs: wire,
          ...(opts.exported ? { exported: true } : {}),
        },
        frames,
      );
      return requestId;
    },
    cancel() {
      const { run } = store.getState();
      if (run.runId) send({ type: 'run.cancel', runId: run.runId });
      for (const st of Object.values(run.streams)) if (!st.ended) send({ type: 'stream.end', streamId: st.streamId });
      actions().markCancelled();
    },
    openStream(graph, source) {
      const streamId = newId('stream');
      actions().beginStream(streamId, graph.name, source);
      send({ type: 'stream.open', streamId, graph: graphRef(graph) });
      return streamId;
    },
    append(streamId, inputs, end) {
      actions().chunkSent(streamId);
      const { wire, frames } = encodeInputs(inputs);
      send({ type: 'stream.append', streamId, inputs: wire, ...(end ? { end: true } : {}) }, frames);
    },
    endStream(streamId) {
      send({ type: 'stream.end', streamId });
    },
    streamEnded(streamId) {
      const st = store.getState().run.streams[streamId];
      return !st || st.ended !== undefined;
    },
    cancelStream(streamId) {
      const st = store.getState().run.streams[streamId];
      if (!st || st.ended) return;
      send({ type: 'stream.end', streamId });
      actions().streamCancelled(streamId);
    },
    close() {
      closed = true;
      ws?.close();
    },
  };
}
