// A ratio between two processes, read as if both had run one stage at the same speed. Each side of the OCR and
// early-exit comparisons runs in a process of its own, and on these VMs one process can run 10–30 % slower than
// the other for a whole bench run (det 17.3 ms in the engine's process against 14.7 in the loop's, same run), which
// moves a ratio by more than the engine's own overhead. Printed beside the ratio, never in its place.

/** One stage's median time in the engine's process and in the direct loop's. */
export interface StageTime {
  stage: string;
  engine_ms: number;
  direct_ms: number;
}

/**
 * `ratio` (engine / direct loop) with the engine's time scaled by how much slower or faster its process ran `stage`
 * than the loop's (the engine's own overhead, if a process's speed was the same for all it ran); undefined when
 * either side did not time the stage.
 * @example atEqualStage(1.25, [{ stage: 'det', engine_ms: 17.2, direct_ms: 15.0 }], 'det') // ≈ 1.09
 */
export function atEqualStage(ratio: number, stages: readonly StageTime[], stage: string): number | undefined {
  const s = stages.find((r) => r.stage === stage);
  if (!s || !(s.engine_ms > 0) || !(s.direct_ms > 0)) return undefined;
  return (ratio * s.direct_ms) / s.engine_ms;
}
