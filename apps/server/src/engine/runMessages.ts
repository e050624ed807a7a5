// The messages a run sends its listener besides the scheduler's own: its end, a failure before it started, a
// sequence's binding; and the guard that keeps a listener's failure out of the run.
import type { ServerMessage } from '@ensemble-studio/core';
import type { ExecutorDeps } from './nodeExecutor.ts';
import type { SchedulerResult } from './schedulerTypes.ts';
import type { RunRequest, RunResult } from './types.ts';
import { wireOnRead } from './wireOnRead.ts';

/** Sends a finished run's terminal message: completed, exited early or failed. */
export function emitEnd(runId: string, r: SchedulerResult, totalMs: number, emit: (m: ServerMessage) => void): void {
  const outputs = wireOnRead(r.outputs);
  if (r.status === 'completed') emit({ type: 'run.completed', runId, outputs, timings: r.timings, totalMs });
  else if (r.status === 'exited_early' && r.exit) emit({ type: 'run.exited_early', runId, ...r.exit, outputs });
  else emit({ type: 'run.failed', runId, error: r.error ?? { code: 'node-failed', message: 'the run failed' } });
}

/** `listener`, whose failures cannot break the run. */
export function guarded(listener: (m: ServerMessage) => void): (m: ServerMessage) => void {
  return (m) => {
    try {
      listener(m);
    } catch {
      /* a listener's failure must not break the run */
    }
  };
}

/** Sends `run.completed` for a run answered from the response cache (no step ran), and its result. */
export function cachedRun(runId: string, outputs: RunResult['outputs'], emit: (m: ServerMessage) => void): RunResult {
  emit({ type: 'run.completed', runId, outputs: wireOnRead(outputs), timings: [], totalMs: 0 });
  return { runId, status: 'completed', outputs, timings: [] };
}

/** Sends `run.failed` for a run that could not start, and its result. */
export function failed(runId: string, emit: (m: ServerMessage) => void, code: string, message: string): RunResult {
  emit({ type: 'run.failed', runId, error: { code, message } });
  return { runId, status: 'failed', outputs: {}, timings: [], error: { code, message } };
}

/** Tells the client which instance a new sequence was bound to. */
export function boundNotice(
  emit: (m: ServerMessage) => void,
  sequence: NonNullable<RunRequest['sequence']>,
): ExecutorDeps['onBound'] {
  return (node, model, instance) =>
    emit({
      type: 'sequence.bound',
      streamId: String(sequence.id),
      sequenceId: sequence.id,
      model,
      instance,
      nodeId: node.id,
    });
}
