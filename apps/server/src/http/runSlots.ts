import { ApiError } from './errors.ts';
import { limitMessage } from './limits.ts';

/** Releases a run slot; calling it again does nothing. */
export type ReleaseRun = () => void;

interface Waiter {
  resolve: (release: ReleaseRun) => void;
  reject: (err: Error) => void;
}

/**
 * The studio's `maxConcurrentRuns` slots. A WebSocket run takes one at once or is refused (`take`); a KServe run
 * (HTTP or gRPC) waits for one in the order it came (`wait`), as Triton queues requests rather than refusing them,
 * up to `maxQueuedRuns` waiting: their bodies are already in memory, so the queue is bounded too.
 * @example const release = await slots.wait(signal); try { await engine.run(r) } finally { release() }
 */
export class RunSlots {
  private active = 0;
  private readonly waiting: Waiter[] = [];

  constructor(private readonly limits: { maxConcurrentRuns: number; maxQueuedRuns: number }) {}

  /** Runs holding a slot. */
  get inFlight(): number {
    return this.active;
  }

  /** Runs waiting for a slot. */
  get waitingCount(): number {
    return this.waiting.length;
  }

  /**
   * A slot now, or ApiError 503 `limit` when every one is held (or runs are waiting for one).
   * @throws ApiError
   */
  take(): ReleaseRun {
    if (this.active >= this.limits.maxConcurrentRuns || this.waiting.length > 0)
      throw new ApiError(
        503,
        'limit',
        limitMessage('too many runs in flight', 'maxConcurrentRuns', this.limits.maxConcurrentRuns),
      );
    this.active++;
    return this.releaser();
  }

  /**
   * A slot once the runs ahead have had theirs; rejects with ApiError 503 `limit` when `maxQueuedRuns` already
   * wait, and with `signal`'s reason when it aborts first (the client went away).
   */
  wait(signal?: AbortSignal): Promise<ReleaseRun> {
    if (this.active < this.limits.maxConcurrentRuns && this.waiting.length === 0) return Promise.resolve(this.take());
    if (this.waiting.length >= this.limits.maxQueuedRuns)
      return Promise.reject(
        new ApiError(
          503,
          'limit',
          `${limitMessage('too many runs in flight', 'maxConcurrentRuns', this.limits.maxConcurrentRuns)}, and ${this.waiting.length} waiting (maxQueuedRuns=${this.limits.maxQueuedRuns})`,
        ),
      );
    if (signal?.aborted) return Promise.reject(new Error('the run was cancelled while it waited for a run slot'));
    return new Promise<ReleaseRun>((resolve, reject) => {
      const waiter: Waiter = {
        resolve: (release) => {
          signal?.removeEventListener('abort', onAbort);
          resolve(release);
        },
        reject,
      };
      const onAbort = () => {
        const at = this.waiting.indexOf(waiter);
        if (at >= 0) this.waiting.splice(at, 1);
        const why: unknown = signal!.reason;
        reject(why instanceof Error ? why : new Error('the run was cancelled while it waited for a run slot'));
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      this.waiting.push(waiter);
    });
  }

  /** A release that hands the slot to the first waiting run, or frees it. */
  private releaser(): ReleaseRun {
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const next = this.waiting.shift();
      if (next) next.resolve(this.releaser());
      else this.active--;
    };
  }
}
