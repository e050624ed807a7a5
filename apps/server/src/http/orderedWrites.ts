/**
 * Writes what it is given in the order it was added, each once it is ready (a response made in the body worker holds
 * back those after it); one that could not be made stops the ones after it, and `settled` reports it.
 * @example const w = new OrderedWrites<Uint8Array>((b) => res.write(b)); w.add(bytes); w.add(promised); const failure = await w.settled();
 */
export class OrderedWrites<T> {
  private tail: Promise<void> = Promise.resolve();
  private waiting = 0;
  private failure: unknown;

  constructor(private readonly write: (item: T) => void) {}

  /** Writes `item` now when nothing is waiting before it, else after what is. */
  add(item: T | Promise<T>): void {
    if (this.failure !== undefined) return;
    if (this.waiting === 0 && !(item instanceof Promise)) return this.write(item);
    // Awaited in its turn; until then a failure must not count as unhandled.
    if (item instanceof Promise) item.catch(() => undefined);
    this.waiting++;
    this.tail = this.tail.then(async () => {
      try {
        const ready = await item;
        if (this.failure === undefined) this.write(ready);
      } catch (err) {
        this.failure ??= err;
      } finally {
        this.waiting--;
      }
    });
  }

  /** Resolves once everything added so far is written, with what stopped them (undefined when nothing did). */
  async settled(): Promise<unknown> {
    await this.tail;
    return this.failure;
  }
}
