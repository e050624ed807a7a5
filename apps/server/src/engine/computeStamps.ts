/**
 * A model request's compute stamps (monotonic ns, `process.hrtime`'s clock): when an instance took it, and when the
 * model itself began and ended (ONNX's session run, Python's `execute`). Traces and compute input/output read them.
 */
export interface ComputeStamps {
  startNs?: number;
  inferStartNs?: number;
  inferEndNs?: number;
}

/** `to` with `from`'s stamps, those it has (set field by field: most requests carry the same few). */
export function copyStamps<T extends ComputeStamps>(to: T, from: ComputeStamps): T {
  if (from.startNs !== undefined) to.startNs = from.startNs;
  if (from.inferStartNs !== undefined) to.inferStartNs = from.inferStartNs;
  if (from.inferEndNs !== undefined) to.inferEndNs = from.inferEndNs;
  return to;
}
