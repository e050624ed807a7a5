/**
 * Half-pixel sample positions of a resize from `inN` to `outN` samples (align_corners = false,
 * OpenCV/PIL style): s = (o + 0.5) · inN/outN − 0.5, clamped to [0, inN − 1].
 * @example samplePositions(2, 4) // [0.5, 2.5]
 */
export function samplePositions(outN: number, inN: number): number[] {
  const scale = inN / outN;
  return Array.from({ length: outN }, (_, o) => Math.min(Math.max((o + 0.5) * scale - 0.5, 0), inN - 1));
}

/**
 * Sampling positions of one axis for a bilinear resize (`samplePositions`) split into
 * i0 = floor(s), i1 = min(i0 + 1, inN − 1), f = s − i0. The generated numpy code
 * (compile/python/ops/common.ts) uses exactly this formula, so both agree bit for bit.
 */
export function axisSamples(outN: number, inN: number): { i0: number[]; i1: number[]; f: number[] } {
  const s = samplePositions(outN, inN);
  const i0 = s.map(Math.floor);
  const i1 = i0.map((lo) => Math.min(lo + 1, inN - 1));
  const f = s.map((v, o) => v - i0[o]!);
  return { i0, i1, f };
}

/**
 * One channel's bilinear value from the indices of its four neighbours in `src`, in float64:
 * (p00·(1−fx) + p01·fx)·(1−fy) + (p10·(1−fx) + p11·fx)·fy (the generated numpy code's order of operations).
 * @example bilinearAt(Uint8Array.of(0, 100, 50, 150), 0, 1, 2, 3, 0.5, 0.5) // 75
 */
export function bilinearAt(
  src: Uint8Array,
  i00: number,
  i01: number,
  i10: number,
  i11: number,
  fx: number,
  fy: number,
): number {
  const top = src[i00]! * (1 - fx) + src[i01]! * fx;
  const bottom = src[i10]! * (1 - fx) + src[i11]! * fx;
  return top * (1 - fy) + bottom * fy;
}
