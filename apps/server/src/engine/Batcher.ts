import type { CancelSignal } from './cancel.ts';
import { callOnce } from './callOnce.ts';
import { abortError, dequeueOnAbort, EngineError } from './errors.ts';
import { BatchQueues, type QueuePolicy, type QueuedEntry } from './batchQueues.ts';

export type { QueuePolicy } from './batchQueues.ts';

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
  /**
   * Only items with equal keys batch together (e.g. same non-batch dims); as Triton's, a batch ends at the first item
   * whose key differs (it goes in a later batch, ahead of those behind it).
   */
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
  /**
   * Triton's priority levels: an item's level (1 is served first; every item at one level when absent). Each level
   * has its own queue under `policyOf(level)` (`priority_queue_policy`, else `policy`).
   */
  priorityOf?: (item: I) => number;
  policyOf?: (level: number) => QueuePolicy<I> | undefined;
}

interface Entry<I, R> extends QueuedEntry<I> {
  resolve: (r: R) => void;
  reject: (e: Error) => void;
  signal?: CancelSignal;
  onAbort?: () => void;
}

/**
 * `dynamic_batching`, DataLoader-shaped: `enqueue(item)` resolves with that item's share of a
 * batch. As Triton's: a batch of a preferred size goes out at once (the largest the queue makes), as does one that
 * cannot grow (the largest preferred size reached, the next item of other shapes or too big); otherwise it waits until
 * its oldest item has waited `maxQueueDelayMs`, or goes at once when the delay is 0 and an instance is free (items
 * enqueued in the same tick batch together). Every waiter is rejected when its batch fails. With priority levels a
 * batch is formed from the highest level's items first (`BatchQueues`).
 * @example const b = new Batcher({ maxBatchSize: 8, maxQueueDelayMs: 1, dispatch: async (xs) => xs.map((x) => x * 2) });
 */
export class Batcher<I, R> {
  private readonly queues: BatchQueues<I, Entry<I, R>>;
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
    const policy = opts.policy;
    this.queues = new BatchQueues(opts.policyOf ?? (() => policy));
  }

  /** Items waiting for a batch. */
  get pending(): number {
    return this.queues.size;
  }

  /** Queues one item; resolves with its result or rejects with its batch's error (or the queue policy's refusal). */
  enqueue(item: I, signal?: CancelSignal): Promise<R> {
    if (signal?.aborted) return Promise.reject(abortError(signal));
    return new Promise<R>((resolve, reject) => {
      const entry: Entry<I, R> = {
        item,
        size: this.opts.sizeOf?.(item) ?? 1,
        key: this.opts.keyOf?.(item) ?? '',
        expiresAt: 0,
        enqueuedAt: this.opts.maxQueueDelayMs > 0 ? performance.now() : 0,
        resolve,
        reject,
        signal,
      };
      const refused = this.queues.add(entry, this.opts.priorityOf?.(item) ?? 0);
      if (refused) return reject(refused);
      if (signal) entry.onAbort = dequeueOnAbort(() => this.queues.listOf(entry), entry, signal, reject);
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

  /** Refuses the items the queue policy expired (`REJECT`: "Request timeout expired"); `DELAY` keeps them, behind. */
  private expire(): void {
    this.queues.expire(refuse);
  }

  /**
   * The entries of the next batch, or none yet, as Triton's dynamic batcher forms one: it walks the queue (oldest first
   * at each level, up to an item of other shapes or past `maxBatchSize` rows), noting the last count that made a
   * preferred size, or the count before the walk first passed the largest preferred size. Unless the oldest item has
   * waited out the queue delay (`delayed`), that noted prefix goes at once; otherwise everything walked goes when the
   * walk stopped early, reached the largest preferred size, or the delay is over (or 0); else the batch waits.
   */
  private nextBatch(delayed: boolean): Entry<I, R>[] | undefined {
    const walked = this.queues.candidates(this.opts.maxBatchSize);
    if (walked.length === 0) return undefined;
    const largest = this.preferred[0]!;
    let rows = 0;
    let best = 0;
    for (let i = 0; i < walked.length; i++) {
      const size = walked[i]!.size;
      if (i > 0 && best === 0 && rows + size > largest) best = i;
      rows += size;
      if (this.preferred.includes(rows)) best = i + 1;
    }
    const delay = this.opts.maxQueueDelayMs;
    if (delay > 0 && !delayed) delayed = this.waited(walked) >= delay;
    if (best > 0 && !delayed) return best === walked.length ? walked : walked.slice(0, best);
    if (this.queues.stopped || rows >= largest || delayed || delay <= 0) return walked;
    return undefined;
  }

  /** How long the oldest of `entries` has waited, in ms. */
  private waited(entries: Entry<I, R>[]): number {
    let oldest = Infinity;
    for (let i = 0; i < entries.length; i++) oldest = Math.min(oldest, entries[i]!.enqueuedAt);
    return performance.now() - oldest;
  }

  private flush(): void {
    while (this.inFlight < (this.opts.capacity ?? Infinity) && this.pending > 0) {
      this.expire();
      const batch = this.nextBatch(this.timerFired);
      if (!batch) break;
      this.timerFired = false;
      this.cancelTimer?.();
      this.cancelTimer = undefined;
      this.queues.remove(batch);
      this.run(batch);
    }
    const delay = this.opts.maxQueueDelayMs;
    // A delay that ran out while every instance was busy waits for the next free one, not for another timer.
    if (this.pending > 0 && !this.cancelTimer && !this.timerFired && delay > 0) {
      // Triton counts the delay from the oldest waiting request's arrival, not from the last batch.
      const left = delay - this.waited(this.queues.candidates(this.opts.maxBatchSize));
      this.cancelTimer = this.schedule(
        () => {
          this.cancelTimer = undefined;
          this.timerFired = true;
          this.flush();
        },
        Math.max(0, left),
      );
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

/** Rejects an entry the queue policy refused. */
function refuse<I, R>(e: Entry<I, R>, error: Error): void {
  settle([e], (x) => x.reject(error));
}

/** Settles each entry of a batch with `fn`, its abort listener removed first. */
function settle<I, R>(batch: Entry<I, R>[], fn: (e: Entry<I, R>, i: number) => void): void {
  batch.forEach((e, i) => {
    if (e.onAbort) e.signal?.removeEventListener('abort', e.onAbort);
    fn(e, i);
  });
}
