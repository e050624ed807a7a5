import type { ServerMessage } from '@ensemble-studio/core';
import { capMessage } from '../http/errors.ts';
import type { RunOptions, RunResult } from './streamClient.ts';
import { encodeWireTensors } from './wireTensors.ts';

const TERMINAL = new Set<ServerMessage['type']>(['run.completed', 'run.failed', 'run.exited_early']);

/**
 * Whether `m` ends a run (completed, failed, exited early): the client gets it from the run's result instead,
 * so that its outputs go out once, large ones as binary frames.
 * @example if (isTerminal(m)) terminal = m
 */
export function isTerminal(m: ServerMessage): boolean {
  return TERMINAL.has(m.type);
}

/**
 * An engine event as this client receives it: `run.started` tagged with the client's requestId/streamId,
 * `sequence.bound` with its streamId and the sequence id it chose, a node's failure message capped.
 * @example sender.send(eventForClient(m, opts))
 */
export function eventForClient(m: ServerMessage, opts: RunOptions): ServerMessage {
  if (m.type === 'run.started')
    return {
      ...m,
      ...(opts.requestId ? { requestId: opts.requestId } : {}),
      ...(opts.streamId ? { streamId: opts.streamId } : {}),
    };
  if (m.type === 'sequence.bound' && opts.streamId)
    return {
      ...m,
      streamId: opts.streamId,
      ...(opts.clientSequenceId === undefined ? {} : { sequenceId: opts.clientSequenceId }),
    };
  if (m.type === 'node.failed') return { ...m, message: capMessage(m.message) };
  return m;
}

/**
 * A run's final message, outputs encoded from the result (binary frames for large tensors); `terminal` is the
 * engine's own terminal event when it sent one (its timings and exit details are kept).
 * @example const { message, frames } = finalMessage(runId, result, terminal)
 */
export function finalMessage(
  runId: string,
  result: RunResult,
  terminal: ServerMessage | undefined,
): { message: ServerMessage; frames?: Uint8Array[] } {
  if (result.status === 'failed') {
    const msg =
      terminal?.type === 'run.failed'
        ? terminal
        : { type: 'run.failed' as const, runId, error: result.error ?? { code: 'internal', message: 'run failed' } };
    return { message: { ...msg, error: { ...msg.error, message: capMessage(msg.error.message) } } };
  }
  const { tensors, frames } = encodeWireTensors(result.outputs);
  if (result.status === 'exited_early' && terminal?.type === 'run.exited_early')
    return { message: { ...terminal, outputs: tensors }, frames };
  if (result.status === 'exited_early' && result.exit) {
    const e = result.exit;
    return {
      message: {
        type: 'run.exited_early',
        runId,
        conditionId: e.conditionId,
        expression: e.expression,
        value: e.value,
        strategy: e.strategy,
        ...(e.message ? { message: e.message } : {}),
        outputs: tensors,
      },
      frames,
    };
  }
  const timings = terminal?.type === 'run.completed' ? terminal.timings : result.timings;
  const totalMs = terminal?.type === 'run.completed' ? terminal.totalMs : Math.max(0, ...timings.map((t) => t.endMs));
  return { message: { type: 'run.completed', runId, outputs: tensors, timings, totalMs }, frames };
}
