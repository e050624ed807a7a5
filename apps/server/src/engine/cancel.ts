/** What the engine reads of a cancellation signal: an AbortSignal is one, and so is a RunCancel. */
export interface CancelSignal {
  readonly aborted: boolean;
  readonly reason: unknown;
  addEventListener(type: 'abort', listener: () => void, options?: { once?: boolean }): void;
  removeEventListener(type: 'abort', listener: () => void): void;
}

/**
 * A run's cancellation: what an AbortController does for the engine, without the EventTarget
 * machinery behind it (a stream runs ~31 graphs a second; creating, listening to and validating
 * AbortSignals was ~8% of the main thread's work per chunk). Listeners fire once, in order.
 * @example const c = new RunCancel(); c.addEventListener('abort', () => log(c.reason)); c.abort(new Error('stop'));
 */
export class RunCancel implements CancelSignal {
  aborted = false;
  reason: unknown = undefined;
  private listeners: (() => void)[] | undefined;

  addEventListener(_type: 'abort', listener: () => void): void {
    if (!this.aborted) (this.listeners ??= []).push(listener);
  }

  removeEventListener(_type: 'abort', listener: () => void): void {
    const at = this.listeners?.indexOf(listener) ?? -1;
    if (at >= 0) this.listeners!.splice(at, 1);
  }

  abort(reason: unknown): void {
    if (this.aborted) return;
    this.aborted = true;
    this.reason = reason;
    const listeners = this.listeners ?? [];
    this.listeners = undefined;
    for (const listener of listeners) listener();
  }
}

/** A deadline `Deadlines.add` made: what `Deadlines.remove` takes. */
export interface Deadline {
  readonly at: number;
  readonly fire: () => void;
}

/**
 * Per-run time limits on one timer: it is armed for the earliest deadline, and each time it fires
 * it fires every deadline that has passed and re-arms for the next. Adding and clearing a deadline
 * costs a Set operation, not a timer: when the last deadline goes, the timer stays armed but stops
 * holding the process open (unref), so runs one after another (each adding a deadline later than the
 * last) do not make and clear a timer each; it fires once at its time, finds nothing due, and re-arms
 * for what is pending then.
 * @example const d = deadlines.add(60_000, () => cancel.abort(timeoutError)); ... deadlines.remove(d);
 */
export class Deadlines {
  private readonly pending = new Set<Deadline>();
  private timer: ReturnType<typeof setTimeout> | undefined;
  private armedAt = Infinity;

  constructor(private readonly now: () => number = () => performance.now()) {}

  /** Calls `fire` in `ms` unless `remove` is given the returned deadline first. */
  add(ms: number, fire: () => void): Deadline {
    const d: Deadline = { at: this.now() + ms, fire };
    this.pending.add(d);
    if (d.at < this.armedAt) this.arm(d.at);
    else if (this.pending.size === 1) this.timer?.ref();
    return d;
  }

  /** Drops a deadline that has not fired (a no-op once it has); once none is left the timer no longer holds the process. */
  remove(d: Deadline): void {
    if (this.pending.delete(d) && this.pending.size === 0) this.timer?.unref();
  }

  /** Drops every deadline (the engine is closing). */
  clear(): void {
    this.pending.clear();
    this.disarm();
  }

  private arm(at: number): void {
    clearTimeout(this.timer);
    this.armedAt = at;
    this.timer = setTimeout(() => this.sweep(), Math.max(0, at - this.now()));
  }

  private disarm(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    this.armedAt = Infinity;
  }

  private sweep(): void {
    this.timer = undefined;
    this.armedAt = Infinity;
    const t = this.now();
    let next = Infinity;
    for (const d of this.pending) {
      if (d.at <= t) {
        this.pending.delete(d);
        d.fire();
      } else if (d.at < next) next = d.at;
    }
    if (next < this.armedAt) this.arm(next); // a deadline added by `fire` may have armed it already
  }
}
