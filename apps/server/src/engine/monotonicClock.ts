// The two clocks the engine reads: `performance.now()` (ms, the scheduler's timings) and `process.hrtime` (ns, the
// stamps instances and workers take). Both count the same monotonic clock from different origins; the offset between
// them is measured once, when first needed.

let offsetMs: number | undefined;

/**
 * A `process.hrtime` stamp (ns, as a number) on `performance.now()`'s scale (ms).
 * @example perfMsOfNs(Number(process.hrtime.bigint())) // ≈ performance.now()
 */
export function perfMsOfNs(ns: number): number {
  offsetMs ??= measureOffset();
  return ns / 1e6 - offsetMs;
}

/** The offset, from the closest of a few paired readings (each clock's first call initialises it: made first). */
function measureOffset(): number {
  performance.now();
  process.hrtime.bigint();
  let closest = Infinity;
  let offset = 0;
  for (let i = 0; i < 8; i++) {
    const before = performance.now();
    const hr = Number(process.hrtime.bigint()) / 1e6;
    const after = performance.now();
    if (after - before < closest) {
      closest = after - before;
      offset = hr - (before + after) / 2;
    }
  }
  return offset;
}
