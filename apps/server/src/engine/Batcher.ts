import type { CancelSignal } from './cancel.ts';
import { callOnce } from './callOnce.ts';
import { abortError, dequeueOnAbort, EngineError } from './errors.ts';

/** Runs `fn` after `ms`; returns a cancel function. Injected so tests fire timers by hand. */
export type Schedule = (fn: () => void, ms: number) => () => void;

/** The real timer. */
export const realSchedule: Schedule = (fn, ms) => {
  const t = setTimeout(fn, ms);
  return () => clearTimeout(t);
};

export interface BatcherOptions<I, R> {
  /** Most rows in one batch (max_batch_size). */
  maxBatchSize: number;
  /** preferred_batch_size; empty = [maxBatchSize]. */
  preferredSizes?: number[];
  /** max_queue_delay_microseconds / 1000: how long the oldest request may wait for a fuller batch. */
  maxQueueDelayMs: number;
  /** Batches in flight at once (the model's instance count); more requests wait and batch up. */
  capacity?: number;
  /** Rows an item contributes (its batch dim); default 1. */
  sizeOf?: (item: I) => number;
  /** Only items with equal keys batch together (e.g. same non-batch dims). */
  keyOf?: (item: I) => string;
  /** Runs one batch; must return one result per item, in order. */
  dispatch: (items: I[]) => Promise<R[]>;
  schedule?: Schedule;
  /**
   * When the queue is looked at after an enqueue or a finished batch: `'microtask'` (default) once the
   * current tick's synchronous code is done; `'turn'` at the end of the event loop's current turn
   * (`setImmediate`), so every request that arrives in the same turn joins one batch — the callers a
   * batch just answered sending their next request, or stream timers that fell due in the same
   * millisecond — instead of the first one going alone to an idle instance.
   */
  gather?: 'microtask' | 'turn';
  /** Triton's queue policy (`dynamic_batching.default_queue_policy`); none: an unbounded queue, no timeouts. */
  policy?: QueuePolicy<I>;
}

/** Triton's `ModelQueuePolicy` for a batcher's queue. */
export interface QueuePolicy<I> {
  /** Most items waiting (delayed ones included) before the next is refused; 0: no limit (`max_queue_size`). */
  maxQueueSize: number;
  /** How long `item` may wait for its batch, in ms; 0: no limit (`default_timeout_microseconds`, or the request's). */
  timeoutMs: (item: I) => number;
  /** An expired item is refused (`REJECT`), or waits behind every unexpired one (`DELAY`). */
  action: 'reject' | 'delay';
  /** The error of an item refused: the queue was full when it came, or it expired. */
  refusal: (why: 'full' | 'timeout', item: I) => Error;
  /** The clock, in ms (injected by tests). */
  now?: () => number;
}

interface Entry<I, R> {
  item: I;
  size: number;
  key: string;
  /** When it expires under the queue policy (its clock, ms); 0: never. */
  expiresAt: number;
  resolve: (r: R) => void;
  reject: (e: Error) => void;
  signal?: CancelSignal;
  onAbort?: () => void;
}

/**
 * `dynamic_batching`, DataLoader-shaped: `enqueue(item)` resolves with that item's share of a
 * batch. A batch goes out when the queue reaches the largest preferred size, when the oldest item
 * has waited `maxQueueDelayMs`, or at once when the delay is 0 and an instance is free (items
 * enqueued in the same tick batch together). Every waiter is rejected when its batch fails.
 * @example const b = new Batcher({ maxBatchSize: 8, maxQueueDelayMs: 1, dispatch: async (xs) => xs.map((x) => x * 2) });
 */
export class Batcher<I, R> {
  private queue: Entry<I, R>[] = [];
  /** Expired items under a `DELAY` policy: batched only when nothing unexpired waits. */
  private delayed: Entry<I, R>[] = [];
  private inFlight = 0;
  private cancelTimer: (() => void) | undefined;
  private timerFired = false;
  private flushQueued = false;
  private readonly preferred: number[];
  private readonly schedule: Schedule;

  constructor(private readonly opts: BatcherOptions<I, R>) {
    const pref = (opts.preferredSizes ?? []).filter((p) => p > 0 && p <= opts.maxBatchSize);
    this.preferred = (pref.length > 0 ? pref : [opts.maxBatchSize]).sort((a, b) => b - a);
    this.schedule = opts.schedule ?? realSchedule;
  }

  /** Items waiting for a batch. */
  get pending(): number {
    return this.queue.length + this.delayed.length;
  }

  /** Queues one item; resolves with its result or rejects with its batch's error (or the queue policy's refusal). */
  enqueue(item: I, signal?: CancelSignal): Promise<R> {
    if (signal?.aborted) return Promise.reject(abortError(signal));
    const policy = this.opts.policy;
    if (policy && policy.maxQueueSize > 0 && this.pending >= policy.maxQueueSize)
      return Promise.reject(policy.refusal('full', item));
    const timeout = policy?.timeoutMs(item) ?? 0;
    return new Promise<R>((resolve, reject) => {
      const entry: Entry<I, R> = {
        item,
        size: this.opts.sizeOf?.(item) ?? 1,
        key: this.opts.keyOf?.(item) ?? '',
        expiresAt: timeout > 0 ? clock(policy!) + timeout : 0,
        resolve,
        reject,
        signal,
      };
      if (signal)
        entry.onAbort = dequeueOnAbort(
          () => (this.delayed.includes(entry) ? this.delayed : this.queue),
          entry,
          signal,
          reject,
        );
      this.queue.push(entry);
      this.flushSoon();
    });
  }

  /** Looks at the queue later (see `gather`), so concurrent enqueues can share a batch. */
  private flushSoon(): void {
    if (this.flushQueued) return;
    this.flushQueued = true;
    if (this.opts.gather === 'turn') setImmediate(this.flushQueuedNow);
    else queueMicrotask(this.flushQueuedNow);
  }

  /** `flushSoon`'s callback, made once (a closure made per call would be named by tsx: a defineProperty each). */
  private readonly flushQueuedNow = (): void => {
    this.flushQueued = false;
    this.flush();
  };

  /**
   * Applies the queue policy as Triton's scheduler does when it forms a batch: each expired item is refused (`REJECT`:
   * "Request timeout expired") or set behind every unexpired one (`DELAY`).
   */
  private expire(): void {
    const policy = this.opts.policy;
    if (!policy || this.queue.length === 0) return;
    const now = clock(policy);
    if (!this.queue.some((e) => e.expiresAt > 0 && now > e.expiresAt)) return;
    const kept: Entry<I, R>[] = [];
    for (const e of this.queue) {
      if (e.expiresAt === 0 || now <= e.expiresAt) kept.push(e);
      else if (policy.action === 'delay') this.delayed.push(e);
      else settle([e], (x) => x.reject(policy.refusal('timeout', x.item)));
    }
    this.queue = kept;
  }

  /** Takes the entries of the next batch (oldest first, same key, ≤ maxBatchSize rows), or none yet. */
  private nextBatch(force: boolean): Entry<I, R>[] | undefined {
    // Delayed items go only when nothing unexpired waits, as Triton dequeues them.
    const from = this.queue.length > 0 ? this.queue : this.delayed;
    const head = from[0];
    if (!head) return undefined;
    const same: Entry<I, R>[] = [];
    let rows = 0;
    for (const e of from) {
      if (e.key !== head.key) continue;
      if (same.length > 0 && rows + e.size > this.opts.maxBatchSize) break;
      same.push(e);
      rows += e.size;
    }
    // Largest preferred size reachable by a prefix of `same`.
    let acc = 0;
    let cut = -1;
    let cutSize = 0;
    same.forEach((e, i) => {
      acc += e.size;
      if (this.preferred.includes(acc) && acc > cutSize) {
        cut = i + 1;
        cutSize = acc;
      }
    });
    const largest = this.preferred[0]!;
    if (cut > 0 && cutSize === largest) return same.slice(0, cut);
    if (rows >= this.opts.maxBatchSize) return cut > 0 ? same.slice(0, cut) : same;
    if (force || this.opts.maxQueueDelayMs <= 0) return same;
    return undefined;
  }

  private flush(): void {
    while (this.inFlight < (this.opts.capacity ?? Infinity) && this.pending > 0) {
      this.expire();
      const batch = this.nextBatch(this.timerFired);
      if (!batch) break;
      this.timerFired = false;
      this.cancelTimer?.();
      this.cancelTimer = undefined;
      if (this.queue.length > 0) this.queue = this.queue.filter((e) => !batch.includes(e));
      else this.delayed = this.delayed.filter((e) => !batch.includes(e));
      this.run(batch);
    }
    if (this.pending > 0 && !this.cancelTimer && this.opts.maxQueueDelayMs > 0) {
      this.cancelTimer = this.schedule(() => {
        this.cancelTimer = undefined;
        this.timerFired = true;
        this.flush();
      }, this.opts.maxQueueDelayMs);
    }
  }

  private run(batch: Entry<I, R>[]): void {
    this.inFlight++;
    // The batch is done: what waits goes out now, before its callers hear back (their runs' continuations are most
    // of the main thread's work per request), so the instance starts its next batch at once, as Triton's instance
    // takes its pending payload as soon as it is free.
    const free = callOnce(() => {
      this.inFlight--;
      if (this.pending > 0) this.flush();
    });
    let p: Promise<R[]>;
    try {
      p = this.opts.dispatch(batch.map((e) => e.item));
    } catch (err) {
      p = Promise.reject(err);
    }
    p.then((results) => {
      if (results.length !== batch.length)
        throw new EngineError('node-failed', `batch of ${batch.length} requests returned ${results.length} results`);
      free();
      settle(batch, (e, i) => e.resolve(results[i]!));
    })
      .catch((err: unknown) => {
        free();
        const error = err instanceof Error ? err : new Error(String(err));
        settle(batch, (e) => e.reject(error));
      })
      .finally(() => {
        if (this.opts.gather === 'turn') this.flushSoon();
        else this.flush();
      });
  }
}

/** The policy's clock: its own (tests), else `performance.now` (called on `performance`: unbound, it throws). */
function clock<I>(policy: QueuePolicy<I>): number {
  return policy.now ? policy.now() : performance.now();
}

/** Settles each entry of a batch with `fn`, its abort listener removed first. */
function settle<I, R>(batch: Entry<I, R>[], fn: (e: Entry<I, R>, i: number) => void): void {
  batch.forEach((e, i) => {
    if (e.onAbort) e.signal?.removeEventListener('abort', e.onAbort);
    fn(e, i);
  });
}
