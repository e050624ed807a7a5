// How much ArrayBuffer memory a call leaves allocated: what an op makes beyond its outputs is fresh memory
// in a model's worker, which collects garbage seldom (engine README, "Fresh pages in an op").

/**
 * `fn`'s result and the bytes of ArrayBuffer memory (`process.memoryUsage().arrayBuffers`) it left allocated:
 * its outputs and any scratch array it dropped, since a garbage collection inside one call is rare (one
 * would only make the count smaller).
 * @example const { bytes } = arrayBufferBytesDuring(() => op.run(inputs, values, ctx));
 */
export function arrayBufferBytesDuring<T>(fn: () => T): { result: T; bytes: number } {
  const before = process.memoryUsage().arrayBuffers;
  const result = fn();
  return { result, bytes: process.memoryUsage().arrayBuffers - before };
}
