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
  /** When it expires under its level's policy (the policy's clock, ms); 0: never. */
  expiresAt: number;
}

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
 * once empty, so a client's many priorities leave nothing behind.
 */
export class BatchQueues<I, E extends QueuedEntry<I>> {
  private levels: Level<I, E>[] = [];

  constructor(private readonly policyOf: (level: number) => QueuePolicy<I> | undefined) {}

  /** Items waiting, every level's delayed ones included. */
  get size(): number {
    let n = 0;
    for (const l of this.levels) n += l.queue.length + l.delayed.length;
    return n;
  }

  /**
   * Adds the entry `make` builds (given its level's policy, for its timeout) at `level`, or returns the refusal of
   * `item` when that level holds its `max_queue_size`.
   */
  add(item: I, level: number, make: (policy: QueuePolicy<I> | undefined) => E): E | Error {
    let at = 0;
    while (at < this.levels.length && this.levels[at]!.level < level) at++;
    let l = this.levels[at];
    if (l?.level !== level) {
      l = { level, policy: this.policyOf(level), queue: [], delayed: [] };
      this.levels.splice(at, 0, l);
    } else if (l.policy && l.policy.maxQueueSize > 0 && l.queue.length + l.delayed.length >= l.policy.maxQueueSize) {
      return l.policy.refusal('full', item);
    }
    const entry = make(l.policy);
    l.queue.push(entry);
    return entry;
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

  /** Calls `visit` with each waiting item in batch order until it returns false. */
  each(visit: (e: E) => boolean): void {
    for (const l of this.levels) {
      for (const e of l.queue) if (!visit(e)) return;
      for (const e of l.delayed) if (!visit(e)) return;
    }
  }

  /** Takes the entries of a batch out of their levels; a level left empty is dropped. */
  remove(batch: E[]): void {
    const first = this.levels[0];
    // The usual batch: the oldest items of the first level.
    if (first && batch.length <= first.queue.length && batch.every((e, i) => first.queue[i] === e)) {
      first.queue.splice(0, batch.length);
      this.prune();
      return;
    }
    const taken = new Set(batch);
    for (const l of this.levels) {
      if (l.queue.some((e) => taken.has(e))) l.queue = l.queue.filter((e) => !taken.has(e));
      if (l.delayed.some((e) => taken.has(e))) l.delayed = l.delayed.filter((e) => !taken.has(e));
    }
    this.prune();
  }

  /** Drops the levels left empty (by a batch or an abort). */
  prune(): void {
    if (this.levels.some((l) => l.queue.length + l.delayed.length === 0))
      this.levels = this.levels.filter((l) => l.queue.length + l.delayed.length > 0);
  }
}
