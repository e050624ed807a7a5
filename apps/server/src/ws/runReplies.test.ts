import { describe, expect, it } from 'vitest';
import type { ServerMessage } from '@ensemble-studio/core';
import { MAX_ERROR_MESSAGE } from '../http/errors.ts';
import { eventForClient, finalMessage, isTerminal } from './runReplies.ts';
import type { RunOptions, RunResult } from './streamClient.ts';
import { fanoutGraph } from '../testing/engineGraphs.ts';

const timing = (nodeId: string, endMs: number) => ({ nodeId, queueMs: 0, computeMs: 1, startMs: endMs - 1, endMs });
const opts = (patch: Partial<RunOptions> = {}): RunOptions => ({ graph: fanoutGraph(), inputs: {}, ...patch });
const result = (patch: Partial<RunResult>): RunResult => ({
  runId: 'e1',
  status: 'completed',
  outputs: {},
  timings: [],
  ...patch,
});

describe('eventForClient', () => {
  const started: ServerMessage = { type: 'run.started', runId: 'e1', graph: 'g', nodes: ['a'] };

  it("tags run.started with the client's requestId or streamId", () => {
    expect(eventForClient(started, opts({ requestId: 'r1' }))).toEqual({
      ...started,
      requestId: 'r1',
    });
    expect(eventForClient(started, opts({ streamId: 's1' }))).toEqual({
      ...started,
      streamId: 's1',
    });
  });

  it("tells a stream's sequence by the id the client chose", () => {
    const bound: ServerMessage = {
      type: 'sequence.bound',
      streamId: 'engine-side',
      sequenceId: 'ws-7-3',
      model: 'vad',
      instance: 'vad_0',
      nodeId: 'v',
    };
    expect(eventForClient(bound, opts({ streamId: 's1', clientSequenceId: 3 }))).toEqual({
      ...bound,
      streamId: 's1',
      sequenceId: 3,
    });
  });

  it("caps a node's failure message and passes other events as they are", () => {
    const failed: ServerMessage = { type: 'node.failed', runId: 'e1', nodeId: 'n', message: 'x'.repeat(5000) };
    const sent = eventForClient(failed, opts());
    expect(sent.type === 'node.failed' && sent.message.length).toBeLessThan(MAX_ERROR_MESSAGE + 100);
    const skipped: ServerMessage = {
      type: 'node.skipped',
      runId: 'e1',
      nodeId: 'n',
      reason: { type: 'cancelled', message: 'stop' },
    };
    expect(eventForClient(skipped, opts())).toBe(skipped);
  });

  it('keeps terminal events for the final message', () => {
    expect(isTerminal({ type: 'run.failed', runId: 'e1', error: { code: 'x', message: 'y' } })).toBe(true);
    expect(isTerminal(started)).toBe(false);
  });
});

describe('finalMessage', () => {
  it('completes with the outputs, large numeric ones as binary frames, and totalMs from the timings', () => {
    const big = new Float32Array(5000).fill(2);
    const { message, frames } = finalMessage(
      'e1',
      result({
        outputs: {
          small: { datatype: 'INT32', shape: [2], data: Int32Array.of(1, 2) },
          big: { datatype: 'FP32', shape: [5000], data: big },
        },
        timings: [timing('a', 3), timing('b', 7)],
      }),
      undefined,
    );
    expect(message).toEqual({
      type: 'run.completed',
      runId: 'e1',
      outputs: {
        small: { datatype: 'INT32', shape: [2], data: [1, 2] },
        big: { datatype: 'FP32', shape: [5000], binary: 0 },
      },
      timings: [timing('a', 3), timing('b', 7)],
      totalMs: 7,
    });
    expect(frames).toHaveLength(1);
    expect(frames![0]!.byteLength).toBe(5000 * 4);
  });

  it("keeps the engine's own timings and total when it sent run.completed", () => {
    const terminal: ServerMessage = {
      type: 'run.completed',
      runId: 'e1',
      outputs: {},
      timings: [timing('a', 2)],
      totalMs: 9,
    };
    const { message } = finalMessage('e1', result({ timings: [timing('a', 3)] }), terminal);
    expect(message).toMatchObject({ timings: [timing('a', 2)], totalMs: 9 });
  });

  it("fails with the engine's error (capped), or with the result's when no run.failed came", () => {
    const long = 'y'.repeat(5000);
    const failed = result({ status: 'failed', error: { code: 'node-failed', message: long, nodeId: 'n' } });
    const { message, frames } = finalMessage('e1', failed, undefined);
    expect(message).toMatchObject({ type: 'run.failed', runId: 'e1', error: { code: 'node-failed', nodeId: 'n' } });
    expect(message.type === 'run.failed' && message.error.message.length).toBeLessThan(MAX_ERROR_MESSAGE + 100);
    expect(frames).toBeUndefined();
    const terminal: ServerMessage = {
      type: 'run.failed',
      runId: 'e1',
      error: { code: 'timeout', message: 'too slow' },
    };
    expect(finalMessage('e1', failed, terminal).message).toEqual(terminal);
    expect(finalMessage('e1', result({ status: 'failed' }), undefined).message).toEqual({
      type: 'run.failed',
      runId: 'e1',
      error: { code: 'internal', message: 'run failed' },
    });
  });

  it('exits early with the condition that ended the run and the outputs it left', () => {
    const exit = { conditionId: 'c', expression: 'len(boxes) == 0', value: true, strategy: 'gate' as const };
    const outputs = { y: { datatype: 'FP32' as const, shape: [1], data: Float32Array.of(0.5) } };
    expect(finalMessage('e1', result({ status: 'exited_early', outputs, exit }), undefined).message).toEqual({
      type: 'run.exited_early',
      runId: 'e1',
      ...exit,
      outputs: { y: { datatype: 'FP32', shape: [1], data: [0.5] } },
    });
    const terminal: ServerMessage = { type: 'run.exited_early', runId: 'e1', ...exit, message: 'no text', outputs: {} };
    expect(finalMessage('e1', result({ status: 'exited_early', outputs, exit }), terminal).message).toEqual({
      ...terminal,
      outputs: { y: { datatype: 'FP32', shape: [1], data: [0.5] } },
    });
  });
});
