import { describe, expect, it } from 'vitest';
import type { ServerMessage } from '@ensemble-studio/core';
import { initialRun, KEPT_LOG_LINES, reduceRun } from './runReducer.ts';
import type { RunState } from '../store/types.ts';

const fold = (s: RunState, msgs: ServerMessage[]) => msgs.reduce(reduceRun, s);
const started = (): RunState =>
  fold({ ...initialRun(), requestId: 'q1', status: 'starting' }, [
    { type: 'run.started', runId: 'r1', requestId: 'q1', graph: 'ocr', nodes: ['det', 'rec'] },
  ]);

describe('run reducer', () => {
  it("keeps a Python model's log lines for its own run only, and the traceback of a failed node", () => {
    const tb =
      'Traceback (most recent call last):\n  File "/repo/add_one/1/model.py", line 12, in execute\nValueError: bad';
    const s = fold(started(), [
      {
        type: 'run.log',
        runId: 'r1',
        nodeId: 'det',
        model: 'add_one',
        instance: 'add_one_0',
        level: 'info',
        message: 'hello',
      },
      {
        type: 'run.log',
        runId: 'someone-else',
        model: 'add_one',
        instance: 'add_one_0',
        level: 'info',
        message: 'not mine',
      },
      { type: 'run.log', runId: 'r1', model: 'add_one', instance: 'add_one_1', level: 'error', message: 'oops' },
      { type: 'node.failed', runId: 'r1', nodeId: 'det', message: 'ValueError: bad', traceback: tb },
    ]);
    expect(s.logs).toEqual([
      { nodeId: 'det', model: 'add_one', instance: 'add_one_0', level: 'info', message: 'hello' },
      { model: 'add_one', instance: 'add_one_1', level: 'error', message: 'oops' },
    ]);
    expect(s.nodes.det).toMatchObject({ status: 'failed', reason: 'ValueError: bad', traceback: tb });
    // The next run starts with an empty log.
    const next = reduceRun(
      { ...s, requestId: 'q2' },
      { type: 'run.started', runId: 'r2', requestId: 'q2', graph: 'g', nodes: ['det'] },
    );
    expect(next.logs).toEqual([]);
  });

  it('keeps only the last KEPT_LOG_LINES lines of a model that prints without end', () => {
    let s = started();
    for (let i = 0; i < KEPT_LOG_LINES + 20; i++)
      s = reduceRun(s, {
        type: 'run.log',
        runId: 'r1',
        model: 'm',
        instance: 'm_0',
        level: 'info',
        message: `line ${i}`,
      });
    expect(s.logs).toHaveLength(KEPT_LOG_LINES);
    expect(s.logs[0]!.message).toBe('line 20');
    expect(s.logs.at(-1)!.message).toBe(`line ${KEPT_LOG_LINES + 19}`);
  });

  it('adopts the run it asked for and queues its nodes', () => {
    const s = started();
    expect(s.runId).toBe('r1');
    expect(s.nodes).toEqual({ det: { status: 'queued' }, rec: { status: 'queued' } });
  });

  it('ignores runs started by someone else', () => {
    const s = reduceRun(
      { ...initialRun(), requestId: 'mine' },
      { type: 'run.started', runId: 'x', requestId: 'other', graph: 'g', nodes: ['a'] },
    );
    expect(s.runId).toBeNull();
  });

  it('tracks running → finished with timings, and says why a node was skipped', () => {
    const timing = { nodeId: 'det', queueMs: 1, computeMs: 20, startMs: 1, endMs: 21 };
    const s = fold(started(), [
      { type: 'node.started', runId: 'r1', nodeId: 'det', atMs: 1, instance: 'det#0' },
      { type: 'node.finished', runId: 'r1', nodeId: 'det', timing, outputs: {} },
      {
        type: 'node.skipped',
        runId: 'r1',
        nodeId: 'rec',
        reason: { type: 'exit', conditionId: 'has_text', expression: 'len(boxes) == 0', value: true },
      },
      {
        type: 'run.exited_early',
        runId: 'r1',
        conditionId: 'has_text',
        expression: 'len(boxes) == 0',
        value: true,
        strategy: 'gate',
        outputs: {},
      },
    ]);
    expect(s.nodes.det).toMatchObject({ status: 'finished', timing, instance: 'det#0' });
    expect(s.nodes.rec?.reason).toContain('has_text');
    expect(s.status).toBe('exited');
    expect(s.message).toContain('len(boxes) == 0');
    expect(s.records[0]?.timings).toEqual([timing]);
  });

  it('ignores events of an older run', () => {
    const s = reduceRun(started(), { type: 'node.started', runId: 'old', nodeId: 'det', atMs: 0 });
    expect(s.nodes.det?.status).toBe('queued');
  });

  it('collects one value per acknowledged stream chunk and the instance binding', () => {
    let s: RunState = {
      ...initialRun(),
      streams: { s1: { streamId: 's1', graph: 'vad-stream', sent: 2, acknowledged: 0, values: [] } },
    };
    s = fold(s, [
      { type: 'sequence.bound', streamId: 's1', sequenceId: 7, model: 'vad', instance: 'vad#1', nodeId: 'vad' },
      { type: 'run.started', runId: 'c0', streamId: 's1', graph: 'vad-stream', nodes: ['vad'] },
      {
        type: 'run.completed',
        runId: 'c0',
        outputs: { speech_prob: { datatype: 'FP32', shape: [1, 1], data: [0.9] } },
        timings: [],
        totalMs: 2,
      },
      { type: 'sequence.chunk', streamId: 's1', chunk: 0, runId: 'c0' },
      { type: 'run.started', runId: 'c1', streamId: 's1', graph: 'vad-stream', nodes: ['vad'] },
      {
        type: 'run.completed',
        runId: 'c1',
        outputs: { speech_prob: { datatype: 'FP32', shape: [1, 1], data: [0.1] } },
        timings: [],
        totalMs: 2,
      },
      { type: 'sequence.chunk', streamId: 's1', chunk: 1, runId: 'c1' },
      { type: 'sequence.ended', streamId: 's1', sequenceId: 7, reason: 'end' },
    ]);
    expect(s.streams.s1).toMatchObject({
      sequenceId: 7,
      instance: 'vad#1',
      acknowledged: 2,
      values: [0.9, 0.1],
      ended: 'end',
    });
  });
});

describe('several sessions', () => {
  it('keeps each stream its own binding, acknowledgements and values', () => {
    const st = (id: string) => ({ streamId: id, graph: 'vad-stream', sent: 3, acknowledged: 0, values: [] });
    const s = fold({ ...initialRun(), streams: { a: st('a'), b: st('b') } }, [
      {
        type: 'sequence.bound',
        streamId: 'a',
        sequenceId: 'studio-stream-1',
        model: 'vad',
        instance: 'vad_0',
        nodeId: 'vad',
      },
      {
        type: 'sequence.bound',
        streamId: 'b',
        sequenceId: 'studio-stream-2',
        model: 'vad',
        instance: 'vad_1',
        nodeId: 'vad',
      },
      { type: 'run.started', runId: 'a0', streamId: 'a', graph: 'vad-stream', nodes: ['vad'] },
      { type: 'run.started', runId: 'b0', streamId: 'b', graph: 'vad-stream', nodes: ['vad'] },
      {
        type: 'run.completed',
        runId: 'a0',
        outputs: { p: { datatype: 'FP32', shape: [1, 1], data: [0.2] } },
        timings: [],
        totalMs: 1,
      },
      { type: 'sequence.chunk', streamId: 'a', chunk: 0, runId: 'a0' },
      {
        type: 'run.completed',
        runId: 'b0',
        outputs: { p: { datatype: 'FP32', shape: [1, 1], data: [0.8] } },
        timings: [],
        totalMs: 1,
      },
      { type: 'sequence.chunk', streamId: 'b', chunk: 0, runId: 'b0' },
      { type: 'sequence.ended', streamId: 'a', sequenceId: 'studio-stream-1', reason: 'end' },
    ]);
    expect(s.streams.a).toMatchObject({ instance: 'vad_0', acknowledged: 1, values: [0.2], ended: 'end' });
    expect(s.streams.b).toMatchObject({ instance: 'vad_1', acknowledged: 1, values: [0.8] });
    expect(s.streams.b?.ended).toBeUndefined();
  });
});
