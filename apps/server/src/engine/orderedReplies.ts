/**
 * Triton's `dynamic_batching.preserve_ordering`: a request's reply (its result or its error) is given only after the
 * replies of every request the model accepted before it, whichever instance or batch finishes first.
 * @example const ordered = new OrderedReplies(); const r = await ordered.track(batcher.enqueue(item));
 */
export class OrderedReplies {
  /** Settles once the last tracked reply has been given. */
  private last: Promise<unknown> = Promise.resolve();

  /** `reply`, given after every reply tracked before it. */
  track<T>(reply: Promise<T>): Promise<T> {
    // A reply that fails while it waits its turn is handled now (else Node reports it unhandled); it is given in turn.
    reply.catch(ignore);
    const inTurn = this.last.then(() => reply);
    this.last = inTurn.then(ignore, ignore);
    return inTurn;
  }
}

function ignore(): void {}
