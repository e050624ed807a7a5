// How much ArrayBuffer memory a call leaves allocated: what an op makes beyond its outputs is fresh memory
// in a model's worker, which collects garbage seldom (engine README, "Fresh pages in an op").

/**
 * `fn`'s result and the bytes of ArrayBuffer memory (`process.memoryUsage().arrayBuffers`) it left allocated:
 * its outputs and any scratch array it dropped, since a garbage collection inside one call is rare (one
 * would only make the count smaller).
 * @example const { bytes } = arrayBufferBytesDuring(() => op.run(inputs, values, ctx));
 */
function arrayBufferBytesDuring<T>(fn: () => T): { result: T; bytes: number } {
  const before = process.memoryUsage().arrayBuffers;
  const result = fn();
  return { result, bytes: process.memoryUsage().arrayBuffers - before };
}

/**
 * The most ArrayBuffer memory any of `calls` calls of `fn` left allocated (`arrayBufferBytesDuring`) and the last
 * result: a collection that happens to run inside one call cannot hide a scratch array from all of them.
 * @example const { bytes } = mostArrayBufferBytes(() => op.run(inputs, values, ctx), 3);
 */
export function mostArrayBufferBytes<T>(fn: () => T, calls: number): { result: T; bytes: number } {
  let last = arrayBufferBytesDuring(fn);
  let bytes = last.bytes;
  for (let i = 1; i < calls; i++) {
    last = arrayBufferBytesDuring(fn);
    bytes = Math.max(bytes, last.bytes);
  }
  return { result: last.result, bytes };
}
