import { initialRun, reduceRun } from '../run/runReducer.ts';
import type { NodeRun, RunActions, SetEditorState } from './types.ts';

/** Run actions. Only run/runSocket.ts calls them: it is the one writer of run state. */
export function createRunActions(set: SetEditorState): RunActions {
  return {
    receive(msg) {
      set((s) => {
        const run = reduceRun(s.run, msg);
        return run === s.run ? {} : { run };
      });
    },
    beginRun(requestId) {
      set((s) => ({
        run: {
          ...s.run,
          runId: null,
          requestId,
          status: 'starting',
          nodes: {},
          partials: [],
          outputs: {},
          message: null,
          totalMs: null,
          startedAt: performance.now(),
          logs: [],
        },
      }));
    },
    beginStream(streamId, graph, source) {
      set((s) => ({
        run: {
          ...s.run,
          requestId: null,
          status: 'starting',
          nodes: {},
          partials: [],
          outputs: {},
          message: null,
          startedAt: performance.now(),
          streams: { ...s.run.streams, [streamId]: { streamId, graph, source, sent: 0, acknowledged: 0, values: [] } },
        },
      }));
    },
    chunkSent(streamId) {
      set((s) => {
        const st = s.run.streams[streamId];
        return st ? { run: { ...s.run, streams: { ...s.run.streams, [streamId]: { ...st, sent: st.sent + 1 } } } } : {};
      });
    },
    streamCancelled(streamId) {
      set((s) => {
        const st = s.run.streams[streamId];
        return st && !st.ended
          ? { run: { ...s.run, streams: { ...s.run.streams, [streamId]: { ...st, ended: 'cancelled by the user' } } } }
          : {};
      });
    },
    setConnected(connected) {
      set((s) => ({ run: { ...s.run, connected } }));
    },
    markCancelled() {
      set((s) => {
        const streams = Object.fromEntries(
          Object.entries(s.run.streams).map(([id, st]) => [
            id,
            st.ended ? st : { ...st, ended: 'cancelled by the user' },
          ]),
        );
        const active = s.run.status === 'starting' || s.run.status === 'running';
        return {
          run: {
            ...s.run,
            streams,
            nodes: cancelledNodes(s.run.nodes),
            status: active ? 'cancelled' : s.run.status,
            message: active ? 'Cancelled by the user' : s.run.message,
          },
        };
      });
    },
    clearRun() {
      set((s) => ({ run: { ...initialRun(), connected: s.run.connected, records: s.run.records } }));
    },
  };
}

/** A cancelled run: nodes that had not finished say so. */
function cancelledNodes(nodes: Record<string, NodeRun>): Record<string, NodeRun> {
  return Object.fromEntries(
    Object.entries(nodes).map(([id, n]) => [
      id,
      n.status === 'queued' || n.status === 'running'
        ? { ...n, status: 'cancelled' as const, reason: 'cancelled by the user' }
        : n,
    ]),
  );
}
