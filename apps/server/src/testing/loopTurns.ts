/**
 * Counts this thread's event-loop turns until stopped: work moved off the thread lets it keep turning.
 * @example const turns = loopTurns(); await parseOffThread(); turns.stop(); expect(turns.count()).toBeGreaterThan(1);
 */
export function loopTurns(): { count: () => number; stop: () => void } {
  let n = 0;
  let on = true;
  const spin = () => {
    n++;
    if (on) setImmediate(spin);
  };
  setImmediate(spin);
  return { count: () => n, stop: () => void (on = false) };
}
