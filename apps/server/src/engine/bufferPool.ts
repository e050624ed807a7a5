/**
 * ArrayBuffers that tensors are copied into before they move to a worker, given back by the worker with its
 * result (`returned`) once the request no longer needs them. A fresh buffer pays a page fault for every 4 KB page
 * it touches (13–20 µs each on these VMs: a 640×160 image's copy took 0.68 ms, most of it faults); a given-back
 * buffer has its pages already. Kept by exact byte length, a few of each, within a byte budget (the oldest length
 * is dropped first).
 * @example const b = pool.take(n); new Uint8Array(b).set(src); worker.postMessage(b, [b]); // later: pool.give(b)
 */
export class BufferPool {
  private readonly free = new Map<number, ArrayBuffer[]>();
  private bytes = 0;

  constructor(
    private readonly maxBytes: number,
    private readonly perLength: number,
  ) {}

  /** A buffer of exactly `byteLength` bytes (a given-back one when there is one); its contents are undefined. */
  take(byteLength: number): ArrayBuffer {
    const list = this.free.get(byteLength);
    const b = list?.pop();
    if (!b) return new ArrayBuffer(byteLength);
    this.bytes -= byteLength;
    if (list!.length === 0) this.free.delete(byteLength);
    return b;
  }

  /** Keeps `b` for a later `take` of its length; a detached, empty or oversized one, or one over the budget, is left to the GC. */
  give(b: ArrayBuffer): void {
    const n = b.byteLength;
    if (n === 0 || n > this.maxBytes) return;
    const list = this.free.get(n) ?? [];
    if (list.length >= this.perLength) return;
    while (this.bytes + n > this.maxBytes) this.dropOldestLength();
    list.push(b);
    this.free.set(n, list);
    this.bytes += n;
  }

  /** Bytes held. */
  get heldBytes(): number {
    return this.bytes;
  }

  private dropOldestLength(): void {
    const [n, list] = this.free.entries().next().value as [number, ArrayBuffer[]];
    this.free.delete(n);
    this.bytes -= n * list.length;
  }
}

/** The main thread's pool for tensor copies sent to workers (tensors.ts `portableFeeds`). */
export const copyBuffers = new BufferPool(64 * 1024 * 1024, 4);
