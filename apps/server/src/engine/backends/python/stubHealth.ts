import { readFile } from 'node:fs/promises';

// Triton's python backend counts a stub as healthy while a thread of its own (native, not needing the GIL) runs:
// the stub marks itself healthy every 300 ms, and a load waiting on `initialize` fails once a 5 s wait ends with
// the mark unset (`Stub process '<instance>' is not healthy.`). Such a thread stops only when the whole process
// stops being scheduled (SIGSTOP, a tracer's stop), so the studio asks the kernel the same question: the process's
// state in /proc. An `initialize` that merely takes long (sleeps, imports, computes) stays healthy in both.

/** How long a stub may stay stopped before it is unhealthy: Triton's wait for an `initialize` answer. */
const STUB_HEALTH_TIMEOUT_MS = 5000;
/**
 * How long a stub with requests (or finalizing) may stay stopped: Triton's backend waits 1 s for a reply
 * (`ReceiveMessageFromStub`), then fails the requests if the stub has not marked itself healthy meanwhile.
 */
export const SERVING_HEALTH_MS = 1000;
const POLL_MS = 500;

/** Whether process `pid` is stopped (signal or tracer stop); false when it cannot be read (gone, or no /proc). */
async function isStopped(pid: number): Promise<boolean> {
  try {
    const stat = await readFile(`/proc/${pid}/stat`, 'latin1');
    // `pid (comm) S …`: comm may itself hold parentheses, so the state is the field after the last ')'.
    const state = stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3);
    return state === 'T' || state === 't';
  } catch {
    return false;
  }
}

/**
 * Watches stub `pid` until `stop()`: calls `unhealthy` once when the process has been seen stopped on every poll
 * for `timeoutMs` (a process stopped for a moment and continued stays healthy).
 * @example const health = watchStubHealth(child.pid, () => failLoad()); …; health.stop();
 */
export function watchStubHealth(
  pid: number,
  unhealthy: () => void,
  timeoutMs = STUB_HEALTH_TIMEOUT_MS,
): { stop: () => void } {
  let stoppedSince: number | undefined;
  let stopped = false;
  const timer = setInterval(
    () => {
      void isStopped(pid).then((now) => {
        if (stopped) return;
        if (!now) stoppedSince = undefined;
        else if (stoppedSince === undefined) stoppedSince = performance.now();
        else if (performance.now() - stoppedSince >= timeoutMs) {
          stopped = true;
          clearInterval(timer);
          unhealthy();
        }
      });
    },
    Math.min(POLL_MS, timeoutMs / 2),
  );
  timer.unref?.();
  return {
    stop: () => {
      stopped = true;
      clearInterval(timer);
    },
  };
}

/**
 * A watch that counts only while a stub has requests (an idle stub is not polled): `watch(pid, unhealthy)` starts a
 * busy stretch (its stopped time counted from zero), `watch(undefined)` ends it. The poll's timer outlives a busy
 * stretch until its next tick finds the stub idle: a stub serving requests one after another went busy and idle per
 * request, and a timer made and cleared per request was ~600 B of the round trip's allocations (heap sampling).
 * @example const watch = watchWhileBusy(); watch(proc.pid, fail); …; watch(undefined);
 */
export function watchWhileBusy(
  timeoutMs = SERVING_HEALTH_MS,
): (pid: number | undefined, unhealthy?: () => void) => void {
  let busy: { pid: number; unhealthy: () => void; stoppedSince?: number } | undefined;
  let timer: ReturnType<typeof setInterval> | undefined;
  const poll = () => {
    const b = busy;
    if (!b) {
      clearInterval(timer);
      timer = undefined;
      return;
    }
    void isStopped(b.pid).then((now) => {
      if (busy !== b) return; // the stretch ended (or another began) while /proc was read
      if (!now) b.stoppedSince = undefined;
      else if (b.stoppedSince === undefined) b.stoppedSince = performance.now();
      else if (performance.now() - b.stoppedSince >= timeoutMs) {
        busy = undefined;
        b.unhealthy();
      }
    });
  };
  return (pid, unhealthy) => {
    busy = pid !== undefined && unhealthy ? { pid, unhealthy } : undefined;
    if (!busy || timer) return;
    timer = setInterval(poll, Math.min(POLL_MS, timeoutMs / 2));
    timer.unref?.();
  };
}
