import { describe, expect, it } from 'vitest';
import { Deadlines, RunCancel } from './cancel.ts';
import { EngineError } from './errors.ts';
import { armRunCancel } from './runCancel.ts';

const codeOf = (c: RunCancel) => (c.reason instanceof EngineError ? c.reason.code : undefined);

describe('armRunCancel', () => {
  it("aborts with 'cancelled' when the caller's signal aborts, at once if it already has", () => {
    const caller = new RunCancel();
    const { cancel } = armRunCancel(caller, 0, new Deadlines());
    expect(cancel.aborted).toBe(false);
    caller.abort(new Error('client left'));
    expect(codeOf(cancel)).toBe('cancelled');
    expect(codeOf(armRunCancel(caller, 0, new Deadlines()).cancel)).toBe('cancelled');
  });

  it("aborts with 'timeout' naming the limit when its deadline passes, and not once disarmed", async () => {
    const deadlines = new Deadlines();
    const timed = armRunCancel(undefined, 5, deadlines);
    const disarmed = armRunCancel(undefined, 5, deadlines);
    disarmed.disarm();
    await new Promise((resolve) => setTimeout(resolve, 30));
    expect(codeOf(timed.cancel)).toBe('timeout');
    expect((timed.cancel.reason as Error).message).toContain('limit of 5 ms');
    expect(disarmed.cancel.aborted).toBe(false);
  });

  it("stops listening to the caller's signal once disarmed", () => {
    const caller = new RunCancel();
    const { cancel, disarm } = armRunCancel(caller, 0, new Deadlines());
    disarm();
    caller.abort(new Error('late'));
    expect(cancel.aborted).toBe(false);
  });
});
