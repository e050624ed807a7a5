// The main thread's and a worker's sets of kept steps stay the same through sends, reuse, eviction and a failed post;
// each message crosses a structured clone, as a worker's port would clone it.
import { describe, expect, it } from 'vitest';
import { StepsKept, StepsSent } from './chainStepsWire.ts';
import type { ChainStep, ToWorker } from './workerProtocol.ts';

type ChainMessage = Extract<ToWorker, { type: 'chain' }>;

const stepsOf = (op: string): ChainStep[] => [
  { kind: 'op', op, values: {}, inputs: { x: { feed: 'x' } } },
  { kind: 'model', inputs: { x: { step: 0, port: 'y' } } },
];
const chain = (id: number, steps: ChainStep[], next?: ChainStep[]): ChainMessage => ({
  type: 'chain',
  id,
  feeds: {},
  steps,
  summarize: false,
  ...(next
    ? {
        next: {
          guest: 'rec#1',
          feeds: {},
          request: { type: 'chain', id: -1, feeds: {}, steps: next, summarize: false },
        },
      }
    : {}),
});

/** Posts `m` through `sent` and takes it in the worker's `kept`, as `postMessage` would (a structured clone). */
function post(sent: StepsSent, kept: StepsKept, m: ChainMessage): { wire: ChainMessage; taken: ChainMessage } {
  const wire = sent.message(m);
  const taken = structuredClone(wire);
  kept.take(taken);
  return { wire, taken };
}

describe('chain steps on the wire', () => {
  it('sends a list once, then its id; the worker reads the same steps either way', () => {
    const sent = new StepsSent();
    const kept = new StepsKept();
    const a = stepsOf('resize');
    const first = post(sent, kept, chain(1, a));
    expect(first.wire.steps).toBe(a);
    const second = post(sent, kept, chain(2, a));
    expect(second.wire.steps).toBeUndefined();
    expect(second.wire.stepsId).toBe(first.wire.stepsId);
    expect(second.taken.steps).toEqual(a);
    // An equal list that is another object is another entry: identity is what is kept.
    const third = post(sent, kept, chain(3, stepsOf('resize')));
    expect(third.wire.steps).toBeDefined();
    expect(kept.size).toBe(2);
  });

  it("replaces the hosted request's steps too, under the same worker's ids", () => {
    const sent = new StepsSent();
    const kept = new StepsKept();
    const det = stepsOf('det_pre');
    const rec = stepsOf('rec_pre');
    post(sent, kept, chain(1, det, rec));
    const { wire, taken } = post(sent, kept, chain(2, det, rec));
    expect(wire.next!.request.steps).toBeUndefined();
    expect(taken.next!.request.steps).toEqual(rec);
    expect(taken.steps).toEqual(det);
  });

  it('evicts the least recently used list past its cap and has the worker forget it', () => {
    const sent = new StepsSent(2);
    const kept = new StepsKept();
    const [a, b, c] = ['a', 'b', 'c'].map(stepsOf);
    post(sent, kept, chain(1, a!));
    post(sent, kept, chain(2, b!));
    post(sent, kept, chain(3, a!)); // a is now the most recent
    const third = post(sent, kept, chain(4, c!));
    expect(third.wire.forgetSteps).toHaveLength(1);
    expect(kept.size).toBe(2);
    expect(post(sent, kept, chain(5, a!)).wire.steps).toBeUndefined(); // still kept
    expect(post(sent, kept, chain(6, b!)).wire.steps).toBe(b); // forgotten: sent again
  });

  it('after a failed post, sends the steps again and has the worker start afresh', () => {
    const sent = new StepsSent();
    const kept = new StepsKept();
    const a = stepsOf('a');
    post(sent, kept, chain(1, a));
    sent.message(chain(2, stepsOf('lost'))); // never reached the worker
    sent.failed();
    const again = post(sent, kept, chain(3, a));
    expect(again.wire.steps).toBe(a);
    expect(again.wire.forgetSteps).toBe('all');
    expect(kept.size).toBe(1);
  });

  it('refuses an id the worker never had, naming it', () => {
    const kept = new StepsKept();
    const m: ChainMessage = { type: 'chain', id: 1, feeds: {}, stepsId: 7, summarize: false };
    expect(() => kept.take(m)).toThrow('chain steps 7 were never sent to this worker');
  });
});
