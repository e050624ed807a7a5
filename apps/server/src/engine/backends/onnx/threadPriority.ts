// A model worker's thread gives way to the engine's main thread: a lower weight and no wake-up preemption.
import { spawnSync } from 'node:child_process';
import { readlinkSync } from 'node:fs';
import { setPriority } from 'node:os';

/**
 * Sets this thread's nice value to `nice` (Linux: a thread id is a valid `setpriority` target) and, when above 0,
 * its policy to SCHED_BATCH (through util-linux's `chrt`; Node has no binding for `sched_setscheduler`). A batch
 * thread keeps its nice weight but never preempts the running thread when it wakes: the main thread that posts it
 * a request keeps its CPU until its turn ends instead of waiting for the scheduler's next tick (apps/server
 * README, "Event-loop lag"). Elsewhere, or when not permitted, the thread keeps what it can.
 */
export function lowerThreadPriority(nice: number): void {
  if (nice === 0) return;
  let tid: number;
  try {
    tid = Number(readlinkSync('/proc/thread-self').split('/').pop());
    if (!Number.isInteger(tid) || tid <= 0) return;
    setPriority(tid, nice);
  } catch {
    return; // Not Linux, or not permitted: the worker keeps the default priority.
  }
  spawnSync('chrt', ['--batch', '--pid', '0', String(tid)], { stdio: 'ignore' });
}
