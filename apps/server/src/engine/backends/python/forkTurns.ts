// Starting a process forks this one on the thread that asks: the kernel copies the page tables of everything it
// has resident (1–5 ms at 44 MB, ~35 ms at 850 MB on the development VM), and nothing else runs on that thread
// meanwhile. A repository load starts every python instance at once; one fork per event-loop turn lets other
// clients be answered between them instead of after all of them.

let last: Promise<void> = Promise.resolve();

/**
 * Resolves on an event-loop turn of its own, after every turn asked for before it: start one process there.
 * @example await forkTurn(); spawn('python3', [...])
 */
export function forkTurn(): Promise<void> {
  const turn = last.then(() => new Promise<void>((resolve) => setImmediate(resolve)));
  last = turn;
  return turn;
}
