import type { Tensor } from '@ensemble-studio/core';
import type { SchedulerOptions, SchedulerResult } from './schedulerTypes.ts';
import type { RunRequest } from './types.ts';

/** A run's responses to its caller (`RunRequest.onResponse`): the scheduler's listener and the run's last call. */
export interface RunResponses {
  /** For the scheduler: each response of a decoupled graph as it is made (undefined when none is streamed). */
  streamed: SchedulerOptions['onResponse'];
  /** After the scheduler: the final call, unless a response already went out final. */
  end(r: SchedulerResult): void;
}

/**
 * How a run answers its caller, as Triton's ensemble does: a decoupled graph streams each response and then says
 * that nothing follows (flags only), unless its last response went out final itself; any other graph answers once,
 * final, with its outputs. A failed run answers nothing here (the caller has the result's error).
 * @example const responses = runResponses(req, decoupled); …; responses.end(schedulerResult)
 */
export function runResponses(req: RunRequest, decoupled: boolean): RunResponses {
  const caller = req.onResponse;
  let sentFinal = false;
  const streamed =
    caller && decoupled
      ? (o: Record<string, Tensor>, final: boolean) => {
          sentFinal ||= final;
          caller(o, final);
        }
      : undefined;
  return {
    streamed,
    end(r: SchedulerResult) {
      if (!caller || r.status === 'failed') return;
      if (decoupled) {
        if (!sentFinal) caller({}, true);
      } else if (r.status === 'completed') caller(r.outputs, true);
    },
  };
}
