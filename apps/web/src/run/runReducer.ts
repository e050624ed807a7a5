import type { ServerMessage, SkipReason, WireTensor } from '@ensemble-studio/core';
import type { NodeRun, RunRecord, RunState, StreamState } from '../store/types.ts';

/** How many finished runs the timeline keeps for comparison. */
const KEPT_RUNS = 5;
/** How many model log lines the run panel keeps (a model printing megabytes must not grow the page without end). */
export const KEPT_LOG_LINES = 500;

export const initialRun = (): RunState => ({
  runId: null,
  requestId: null,
  status: 'idle',
  nodes: {},
  partials: [],
  outputs: {},
  message: null,
  totalMs: null,
  startedAt: null,
  records: [],
  streams: {},
  runStreams: {},
  connected: false,
  logs: [],
});

/** A skip reason in words, e.g. "no text? exited: len(boxes) == 0 was true". */
function skipText(r: SkipReason): string {
  switch (r.type) {
    case 'exit':
      return `exited early at '${r.conditionId}': ${r.expression} was ${String(r.value)}`;
    case 'upstream-failed':
      return `'${r.nodeId}' failed: ${r.message}`;
    case 'cancelled':
      return r.message || 'cancelled';
  }
}

function setNode(s: RunState, id: string, patch: Partial<NodeRun>): RunState {
  const cur = s.nodes[id] ?? { status: 'queued' as const };
  return { ...s, nodes: { ...s.nodes, [id]: { ...cur, ...patch } } };
}

function firstNumber(outputs: Record<string, WireTensor>): number | undefined {
  for (const t of Object.values(outputs)) {
    const v = t.data?.[0];
    if (typeof v === 'number') return v;
  }
  return undefined;
}

function updateStream(s: RunState, streamId: string, f: (st: StreamState) => StreamState): RunState {
  const st = s.streams[streamId];
  return st ? { ...s, streams: { ...s.streams, [streamId]: f(st) } } : s;
}

function finish(
  s: RunState,
  runId: string,
  status: RunRecord['status'],
  totalMs: number,
  timings: RunRecord['timings'],
): RunState {
  if (runId !== s.runId) return s;
  const record: RunRecord = { runId, graph: '', status, totalMs, timings };
  return {
    ...s,
    status: s.status === 'cancelled' ? 'cancelled' : status,
    totalMs,
    records: [record, ...s.records].slice(0, KEPT_RUNS),
  };
}

/** Timings of what finished so far, for runs that end without `run.completed`. */
const timingsOf = (s: RunState) => Object.values(s.nodes).flatMap((n) => (n.timing ? [n.timing] : []));

function reduceRunEvent(s: RunState, msg: ServerMessage): RunState {
  switch (msg.type) {
    case 'run.started': {
      const stream = msg.streamId !== undefined ? s.streams[msg.streamId] : undefined;
      const adopt =
        (msg.requestId !== undefined && msg.requestId === s.requestId) || (stream !== undefined && !stream.ended);
      if (!adopt) return s;
      const nodes = Object.fromEntries(msg.nodes.map((id) => [id, { status: 'queued' as const }]));
      const runStreams = msg.streamId ? { ...s.runStreams, [msg.runId]: msg.streamId } : s.runStreams;
      return {
        ...s,
        runId: msg.runId,
        status: 'running',
        nodes,
        partials: msg.streamId ? s.partials : [],
        outputs: {},
        message: null,
        totalMs: null,
        runStreams,
        logs: msg.streamId ? s.logs : [],
      };
    }
    case 'node.started':
      return msg.runId === s.runId
        ? setNode(s, msg.nodeId, { status: 'running', instance: msg.instance, batchSize: msg.batchSize })
        : s;
    case 'node.finished':
      return msg.runId === s.runId
        ? setNode(s, msg.nodeId, { status: 'finished', timing: msg.timing, outputs: msg.outputs })
        : s;
    case 'node.skipped':
      return msg.runId === s.runId ? setNode(s, msg.nodeId, { status: 'skipped', reason: skipText(msg.reason) }) : s;
    case 'node.failed':
      return msg.runId === s.runId
        ? setNode(s, msg.nodeId, {
            status: 'failed',
            reason: msg.message,
            ...(msg.traceback ? { traceback: msg.traceback } : {}),
          })
        : s;
    case 'run.log': {
      if (msg.runId !== s.runId && !s.runStreams[msg.runId]) return s;
      const line = {
        ...(msg.nodeId ? { nodeId: msg.nodeId } : {}),
        model: msg.model,
        instance: msg.instance,
        level: msg.level,
        message: msg.message,
      };
      const logs =
        s.logs.length >= KEPT_LOG_LINES
          ? [...s.logs.slice(s.logs.length - KEPT_LOG_LINES + 1), line]
          : [...s.logs, line];
      return { ...s, logs };
    }
    case 'run.partial':
      return msg.runId === s.runId
        ? {
            ...s,
            partials: [...s.partials, { nodeId: msg.nodeId, index: msg.index, chunk: msg.chunk, outputs: msg.outputs }],
          }
        : s;
    case 'run.exited_early': {
      const text = `Exited early at '${msg.conditionId}' (${msg.strategy}): ${msg.expression} was ${String(msg.value)}${msg.message ? ` — ${msg.message}` : ''}`;
      const next = finish(s, msg.runId, 'exited', 0, timingsOf(s));
      return next === s ? s : { ...next, outputs: msg.outputs, message: text };
    }
    case 'run.completed': {
      const streamId = s.runStreams[msg.runId];
      let next = streamId
        ? updateStream(s, streamId, (st) => {
            const v = firstNumber(msg.outputs);
            return v === undefined ? st : { ...st, values: [...st.values, v] };
          })
        : s;
      next = finish(next, msg.runId, 'completed', msg.totalMs, msg.timings);
      return msg.runId === s.runId ? { ...next, outputs: msg.outputs } : next;
    }
    case 'run.failed': {
      const next = finish(s, msg.runId, 'failed', 0, timingsOf(s));
      return next === s ? s : { ...next, message: msg.error.message };
    }
    default:
      return s;
  }
}

/**
 * Folds one server message into run state. Pure: runSocket calls it through the store's `receive`.
 * @example reduceRun(state, { type: 'node.started', runId, nodeId: 'det', atMs: 3 }).nodes.det.status === 'running'
 */
export function reduceRun(s: RunState, msg: ServerMessage): RunState {
  switch (msg.type) {
    case 'sequence.bound':
      return updateStream(s, msg.streamId, (st) => ({
        ...st,
        sequenceId: msg.sequenceId,
        instance: msg.instance,
        model: msg.model,
      }));
    case 'sequence.chunk':
      return updateStream(s, msg.streamId, (st) =>
        msg.chunk + 1 > st.acknowledged ? { ...st, acknowledged: msg.chunk + 1 } : st,
      );
    case 'sequence.ended':
      return updateStream(s, msg.streamId, (st) =>
        st.ended ? st : { ...st, ended: msg.message ? `${msg.reason}: ${msg.message}` : msg.reason },
      );
    case 'error':
      return { ...s, status: s.status === 'starting' ? 'failed' : s.status, message: msg.error.message };
    default:
      return reduceRunEvent(s, msg);
  }
}
