import { describe, expect, it } from 'vitest';
import type { Tensor } from '@ensemble-studio/core';
import { runResponses } from './runResponses.ts';
import type { SchedulerResult } from './schedulerTypes.ts';
import type { RunRequest } from './types.ts';

const t: Tensor = { datatype: 'FP32', shape: [1], data: Float32Array.of(1) };
const result = (status: SchedulerResult['status']) => ({ status, outputs: { y: t } }) as unknown as SchedulerResult;
const listening = () => {
  const calls: [string, boolean][] = [];
  const req = { onResponse: (o: Record<string, Tensor>, final: boolean) => calls.push([Object.keys(o).join(), final]) };
  return { calls, req: req as unknown as RunRequest };
};

describe('runResponses', () => {
  it('a decoupled run streams its responses, then a flags-only final', () => {
    const { calls, req } = listening();
    const r = runResponses(req, true);
    r.streamed!({ y: t }, false);
    r.end(result('completed'));
    expect(calls).toEqual([
      ['y', false],
      ['', true],
    ]);
  });

  it('a decoupled run whose last response went out final sends no flags-only final', () => {
    const { calls, req } = listening();
    const r = runResponses(req, true);
    r.streamed!({ y: t }, false);
    r.streamed!({ y: t }, true);
    r.end(result('completed'));
    expect(calls).toEqual([
      ['y', false],
      ['y', true],
    ]);
  });

  it('any other run answers once with its outputs, a failed one not at all', () => {
    const { calls, req } = listening();
    const r = runResponses(req, false);
    expect(r.streamed).toBeUndefined();
    r.end(result('completed'));
    runResponses(req, false).end(result('failed'));
    expect(calls).toEqual([['y', true]]);
  });
});
