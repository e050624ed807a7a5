/**
 * Counts the requests a model runtime has accepted and not yet answered (queued in a batcher, waiting for a
 * sequence slot, or running), so a retiring runtime closes only once none is left.
 */
export class RequestsInFlight {
  private count = 0;
  private waiters: (() => void)[] = [];

  enter(): void {
    this.count++;
  }

  leave(): void {
    // Most requests find nobody waiting: no array is made for them.
    if (--this.count === 0 && this.waiters.length > 0) for (const resolve of this.waiters.splice(0)) resolve();
  }

  /** Resolves once no request is in flight. */
  drained(): Promise<void> {
    return this.count === 0 ? Promise.resolve() : new Promise((resolve) => this.waiters.push(resolve));
  }
}
