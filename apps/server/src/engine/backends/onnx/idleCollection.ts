// A worker never detaches an ArrayBuffer: one detach in a thread makes every typed-array loop that thread runs
// ~30 % slower for the rest of its life (V8 drops its "array buffers are never detached" assumption and checks each
// access; engine README, "A detached buffer slows every op in its thread"). So a worker's replies are copied by
// `postMessage`, not moved, and what a request brought or made is freed by a young-generation collection once the
// engine has no run in flight, rather than by moving it to a closed port.
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

/**
 * Below this many bytes of tensors a request leaves no collection behind: V8's own collections keep up with that
 * much garbage without handing fresh pages to the next request. Above it, one young-generation collection (~0.4 ms
 * measured in det's worker) costs less than faulting the pages back in (64 pages at 13–20 µs each).
 */
export const COLLECT_ABOVE_BYTES = 256 * 1024;

/** A young-generation ('minor') or full ('major') collection. */
export type Collect = (type: 'minor' | 'major') => void;

/**
 * V8's collections, callable from this thread (`gc` comes from a context made with it exposed). A full one is
 * `gc()`: Node 20's V8 runs `gc({ type: 'major' })` as a young-generation collection.
 */
export function v8Collection(): Collect {
  setFlagsFromString('--expose-gc');
  const gc = runInNewContext('gc') as (options?: { type: 'minor' }) => void;
  return (type) => (type === 'minor' ? gc({ type }) : gc());
}

/** The distinct ArrayBuffer bytes behind `tensors` (JS arrays and shared buffers count nothing). */
export function tensorBytes(tensors: Iterable<{ data: unknown }>): number {
  const seen = new Set<ArrayBuffer>();
  let bytes = 0;
  for (const t of tensors) {
    if (!ArrayBuffer.isView(t.data)) continue;
    const b = t.data.buffer;
    if (!(b instanceof ArrayBuffer) || seen.has(b)) continue;
    seen.add(b);
    bytes += b.byteLength;
  }
  return bytes;
}

/**
 * Collects what requests left once the worker is idle. `replied(bytes)` after each reply counts what the request
 * held; `engineIdle()` (the engine has no run in flight) collects the young generation at the thread's next timer
 * turn once that count passes COLLECT_ABOVE_BYTES; `busy()` (a request arrived) holds an armed collection off until the
 * engine is idle again, so a collection never delays a request that is waiting, nor a run in flight elsewhere in the
 * process. Under load that never leaves the engine idle, V8's own collections (set off by external memory) take over.
 * @example const idle = new IdleCollector(v8Collection()); // then replied(n) after a reply, busy() per message, …
 */
export class IdleCollector {
  private timer: ReturnType<typeof setTimeout> | undefined;
  /** Tensor bytes of the requests replied to since the last collection. */
  private owed = 0;
  private type: 'minor' | 'major' = 'minor';

  constructor(private readonly collect: Collect) {}

  /** A reply was posted for a request whose tensors took `bytes`. */
  replied(bytes: number): void {
    this.owed += bytes;
  }

  /** The engine has no run in flight. */
  engineIdle(): void {
    if (this.owed > COLLECT_ABOVE_BYTES) this.arm();
  }

  /**
   * A request failed: what it made is collected in full at the next idle turn, whatever its size and whatever else
   * runs (an output refused for the server's limits may be gigabytes, and may have left the young generation).
   */
  failed(): void {
    this.type = 'major';
    this.arm();
  }

  /** A request arrived: an armed collection waits for the engine to be idle again (what is owed is kept). */
  busy(): void {
    if (this.timer === undefined) return;
    clearTimeout(this.timer);
    this.timer = undefined;
  }

  private arm(): void {
    clearTimeout(this.timer);
    this.timer = setTimeout(this.run, 0);
    this.timer.unref();
  }

  private readonly run = (): void => {
    const type = this.type;
    this.timer = undefined;
    this.owed = 0;
    this.type = 'minor';
    this.collect(type);
  };
}
