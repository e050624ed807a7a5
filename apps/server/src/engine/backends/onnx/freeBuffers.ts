// A worker's tensors are garbage once its reply is posted; their memory goes back at once rather than at the
// thread's next garbage collection (engine README, "Performance").
import { MessageChannel } from 'node:worker_threads';

/**
 * Releases the memory behind `tensors` now: each distinct ArrayBuffer is moved to a port that is closed at once,
 * which frees its backing store. Until a collection freed them, each request's outputs (0.3–3.5 MB apiece in OCR)
 * made the next request's allocations touch fresh pages, and their external memory set off mark-compacts.
 * Buffers already moved elsewhere (detached), shared ones and JS arrays are left alone; one marked untransferable
 * (a pooled one) is copied by `postMessage` rather than moved, so it stays too. Returns how many buffers were freed.
 * @example freeNow([...Object.values(feeds), ...Object.values(outputs)]) // after the reply was posted
 */
export function freeNow(tensors: Iterable<{ data: unknown }>): number {
  const buffers = new Set<ArrayBuffer>();
  for (const t of tensors) {
    if (!ArrayBuffer.isView(t.data)) continue;
    const b = t.data.buffer;
    if (b instanceof ArrayBuffer && b.byteLength > 0) buffers.add(b);
  }
  if (buffers.size === 0) return 0;
  const { port1, port2 } = new MessageChannel();
  try {
    port1.postMessage(null, [...buffers]);
  } catch {
    // Not expected (each buffer is listed once and attached): left to the garbage collector.
  }
  port1.close();
  port2.close();
  let freed = 0;
  for (const b of buffers) if (b.byteLength === 0) freed++;
  return freed;
}
