import { RunCancel, type CancelSignal, type Deadlines } from './cancel.ts';
import { EngineError } from './errors.ts';

/** A run's cancellation and how to detach it from what could abort it. */
interface ArmedCancel {
  cancel: RunCancel;
  /** Detaches the caller's signal and removes the deadline, once the run has ended. */
  disarm(): void;
}

/**
 * A run's cancellation, aborted when the caller's `signal` aborts ('cancelled') or when `timeoutMs` has passed
 * ('timeout'; 0 sets no limit), whichever comes first.
 * @example const { cancel, disarm } = armRunCancel(req.signal, 60_000, deadlines); try { … } finally { disarm(); }
 */
export function armRunCancel(signal: CancelSignal | undefined, timeoutMs: number, deadlines: Deadlines): ArmedCancel {
  const cancel = new RunCancel();
  const onAbort = signal ? () => cancel.abort(new EngineError('cancelled', 'the run was cancelled')) : undefined;
  if (signal?.aborted) onAbort!();
  else if (onAbort) signal!.addEventListener('abort', onAbort, { once: true });
  const deadline =
    timeoutMs > 0
      ? deadlines.add(timeoutMs, () =>
          cancel.abort(new EngineError('timeout', `the run took longer than its limit of ${timeoutMs} ms`)),
        )
      : undefined;
  return {
    cancel,
    disarm() {
      if (deadline) deadlines.remove(deadline);
      if (onAbort) signal!.removeEventListener('abort', onAbort);
    },
  };
}

/**
 * Waits for `work`, or only until `signal` aborts (the work goes on unawaited); rejects as `work` does.
 * @example await untilAborted(loadEverything(), stopSignal); if (stopSignal.aborted) …
 */
export async function untilAborted(work: Promise<unknown>, signal: AbortSignal | undefined): Promise<void> {
  if (!signal) return void (await work);
  let stop!: () => void;
  const stopped = new Promise<void>((resolve) => (stop = resolve));
  signal.addEventListener('abort', stop, { once: true });
  try {
    await Promise.race([work, stopped]);
  } finally {
    signal.removeEventListener('abort', stop);
  }
}
