// Bookkeeping a run's answer need not wait for (what the placer learns from it): done once the event loop's current
// turn is over, after the caller has its result, in the order it was asked for.

const tasks: (() => void)[] = [];
let scheduled = false;

/**
 * Runs `task` after this turn of the event loop (`setImmediate`), with every other task asked for in it. A task that
 * throws is reported as a process warning and the others still run: what it would have recorded is lost, not the run.
 * @example afterTurn(() => placer.recordWake(key, woken, ms, instance));
 */
export function afterTurn(task: () => void): void {
  tasks.push(task);
  if (scheduled) return;
  scheduled = true;
  setImmediate(flush);
}

function flush(): void {
  scheduled = false;
  for (const task of tasks.splice(0)) {
    try {
      task();
    } catch (err) {
      process.emitWarning(`engine bookkeeping failed: ${err instanceof Error ? err.message : String(err)}`);
    }
  }
}
