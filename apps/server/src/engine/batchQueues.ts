/** Triton's `ModelQueuePolicy` for one priority level of a batcher's queue. */
export interface QueuePolicy<I> {
  /** Most items waiting at the level (delayed ones included) before the next is refused; 0: no limit (`max_queue_size`). */
  maxQueueSize: number;
  /** How long `item` may wait for its batch, in ms; 0: no limit (`default_timeout_microseconds`, or the request's). */
  timeoutMs: (item: I) => number;
  /** An expired item is refused (`REJECT`), or waits behind its level's unexpired ones (`DELAY`). */
  action: 'reject' | 'delay';
  /** The error of an item refused: the queue was full when it came, or it expired. */
  refusal: (why: 'full' | 'timeout', item: I) => Error;
  /** The clock, in ms (injected by tests). */
  now?: () => number;
}

/** What the queues need of a waiting item. */
export interface QueuedEntry<I> {
  item: I;
  /** Rows it adds to a batch. */
  size: number;
  /** Only entries with equal keys batch together. */
  key: string;
  /** When it expires under its level's policy (the policy's clock, ms); 0: never. */
  expiresAt: number;
  /** When it was queued (`performance.now()`), for the batcher's queue delay; 0 when the batcher has none. */
  enqueuedAt: number;
}

/** Levels kept while empty. */
const KEPT_LEVELS = 8;

/** One priority level: its policy, its unexpired items in arrival order, then its expired ones under `DELAY`. */
interface Level<I, E> {
  level: number;
  policy: QueuePolicy<I> | undefined;
  queue: E[];
  delayed: E[];
}

/**
 * The batcher's waiting items as Triton's `PriorityQueue` keeps them: one queue per priority level, the lowest number
 * served first, each level under its own queue policy. A batch is formed in `each`'s order: a level's unexpired
 * items, then its delayed ones, then the next level's. Levels are made when an item first comes to them and dropped
 * once empty when there are many, so a client's many priorities leave nothing behind.
 */
export class BatchQueues<I, E extends QueuedEntry<I>> {
  private levels: Level<I, E>[] = [];
  /** Whether any level has had a policy (else there is nothing to expire). */
  private policed = false;

  constructor(private readonly policyOf: (level: number) => QueuePolicy<I> | undefined) {}

  /** Items waiting, every level's delayed ones included. */
  get size(): number {
    const levels = this.levels;
    if (levels.length === 1) return levels[0]!.queue.length + levels[0]!.delayed.length;
    let n = 0;
    for (let i = 0; i < levels.length; i++) n += levels[i]!.queue.length + levels[i]!.delayed.length;
    return n;
  }

  /**
   * Adds `entry` at `level`, its expiry set by that level's policy, or returns its refusal when the level holds its
   * `max_queue_size`.
   */
  add(entry: E, level: number): Error | undefined {
    let at = 0;
    while (at < this.levels.length && this.levels[at]!.level < level) at++;
    let l = this.levels[at];
    if (l?.level !== level) {
      l = { level, policy: this.policyOf(level), queue: [], delayed: [] };
      if (l.policy) this.policed = true;
      this.levels.splice(at, 0, l);
    }
    const policy = l.policy;
    if (policy) {
      if (policy.maxQueueSize > 0 && l.queue.length + l.delayed.length >= policy.maxQueueSize) {
        this.prune();
        return policy.refusal('full', entry.item);
      }
      const timeout = policy.timeoutMs(entry.item);
      if (timeout > 0) entry.expiresAt = (policy.now ? policy.now() : performance.now()) + timeout;
    }
    l.queue.push(entry);
    return undefined;
  }

  /** The list that holds `entry` now (its level's queue or delayed items), for an abort to take it out of. */
  listOf(entry: E): E[] {
    for (const l of this.levels) {
      if (l.queue.includes(entry)) return l.queue;
      if (l.delayed.includes(entry)) return l.delayed;
    }
    return [];
  }

  /**
   * Applies each level's policy as Triton's scheduler does when it forms a batch: every expired item is refused
   * (`REJECT`, handed to `refuse` with its level's error) or set behind its level's unexpired ones (`DELAY`).
   */
  expire(refuse: (e: E, error: Error) => void): void {
    if (!this.policed) return;
    for (const l of this.levels) {
      const policy = l.policy;
      if (!policy || l.queue.length === 0) continue;
      const now = policy.now ? policy.now() : performance.now();
      if (!l.queue.some((e) => e.expiresAt > 0 && now > e.expiresAt)) continue;
      const refused: E[] = [];
      l.queue = l.queue.filter((e) => {
        if (e.expiresAt === 0 || now <= e.expiresAt) return true;
        (policy.action === 'delay' ? l.delayed : refused).push(e);
        return false;
      });
      for (const e of refused) refuse(e, policy.refusal('timeout', e.item));
    }
  }

  /**
   * Whether the last `candidates` stopped before the queue's end: at an item whose key differs from the first's (its
   * shapes cannot join the batch) or one that would pass `maxRows`. Triton then sends what it has at once.
   */
  stopped = false;

  /**
   * The next batch's candidates as Triton's cursor walks them (a level's unexpired items, then its delayed ones, then
   * the next level's): the first item (whatever its size) and those after it, up to the first with another key or one
   * that would pass `maxRows` rows (`stopped` says whether it came to one).
   */
  candidates(maxRows: number): E[] {
    const out: E[] = [];
    let rows = 0;
    this.stopped = false;
    const levels = this.levels;
    for (let i = 0; i < levels.length; i++) {
      for (let pass = 0; pass < 2; pass++) {
        const list = pass === 0 ? levels[i]!.queue : levels[i]!.delayed;
        for (let k = 0; k < list.length; k++) {
          const e = list[k]!;
          if (out.length > 0 && (e.key !== out[0]!.key || rows + e.size > maxRows)) {
            this.stopped = true;
            return out;
          }
          out.push(e);
          rows += e.size;
        }
      }
    }
    return out;
  }

  /** Takes the entries of a batch out of their levels (empty levels dropped when there are many). */
  remove(batch: E[]): void {
    const first = this.levels[0];
    // The usual batch: the oldest items of the first level.
    if (first && isPrefix(batch, first.queue)) {
      for (let i = 0; i < batch.length; i++) first.queue.shift();
    } else {
      const taken = new Set(batch);
      for (const l of this.levels) {
        if (l.queue.some((e) => taken.has(e))) l.queue = l.queue.filter((e) => !taken.has(e));
        if (l.delayed.some((e) => taken.has(e))) l.delayed = l.delayed.filter((e) => !taken.has(e));
      }
    }
    this.prune();
  }

  /**
   * Drops the levels left empty (by a batch or an abort) once there are more than `KEPT_LEVELS`: the few a model's
   * clients use stay, so a request does not make its level again each time.
   */
  private prune(): void {
    if (this.levels.length <= KEPT_LEVELS) return;
    let empty = false;
    for (const l of this.levels) if (l.queue.length + l.delayed.length === 0) empty = true;
    if (empty) this.levels = this.levels.filter((l) => l.queue.length + l.delayed.length > 0);
  }
}

/** Whether `part` is the start of `list`. */
function isPrefix<T>(part: T[], list: T[]): boolean {
  if (part.length > list.length) return false;
  for (let i = 0; i < part.length; i++) if (part[i] !== list[i]) return false;
  return true;
}
