import { availableParallelism } from 'node:os';

/**
 * Calls `fn` on every item, at most `concurrency` calls unfinished at any time (every one at once when
 * `concurrency` is at least the number of items); resolves when all have settled. A rejection ends only its
 * own call: `fn` reports its failures itself.
 * @example await eachAtMost(models, 1, (m) => engine.load(m))
 */
export async function eachAtMost<T>(
  items: readonly T[],
  concurrency: number,
  fn: (item: T) => Promise<unknown>,
): Promise<void> {
  let next = 0;
  const lane = async () => {
    while (next < items.length) await fn(items[next++]!).catch(() => undefined);
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(concurrency, items.length)) }, lane));
}

/**
 * Models to load at once while the server answers clients: one per core but the event loop's. Each model boots
 * its instances' threads (or Python processes) together, and on two cores a dozen of them at the main thread's
 * priority left it ~a fifth of a core: other clients waited 90–220 ms during a repository import.
 */
export function servingLoadConcurrency(): number {
  return Math.max(1, availableParallelism() - 1);
}
