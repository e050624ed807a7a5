/** A pixel rectangle of an image: top-left corner and size, all integers. */
export interface Region {
  x: number;
  y: number;
  w: number;
  h: number;
}

/**
 * Half-pixel sample positions of a resize from `inN` to `outN` samples (align_corners = false,
 * OpenCV/PIL style): s = (o + 0.5) · inN/outN − 0.5, clamped to [0, inN − 1].
 * @example samplePositions(2, 4) // [0.5, 2.5]
 */
export function samplePositions(outN: number, inN: number): Float64Array {
  const scale = inN / outN;
  return Float64Array.from({ length: outN }, (_, o) => Math.min(Math.max((o + 0.5) * scale - 0.5, 0), inN - 1));
}

/**
 * Sampling positions of one axis for a bilinear resize (`samplePositions`) split into
 * i0 = floor(s), i1 = min(i0 + 1, inN − 1), f = s − i0. The generated numpy code
 * (compile/python/ops/common.ts) uses exactly this formula, so both agree bit for bit.
 */
function axisSamples(outN: number, inN: number): { i0: Int32Array; i1: Int32Array; f: Float64Array } {
  const s = samplePositions(outN, inN);
  const i0 = Int32Array.from(s, Math.floor);
  const i1 = Int32Array.from(i0, (lo) => Math.min(lo + 1, inN - 1));
  const f = Float64Array.from(s, (v, o) => v - i0[o]!);
  return { i0, i1, f };
}

/**
 * Bilinearly resizes `region` of a UINT8 HWC image (`width` pixels a row, `channels` channels)
 * to outH × outW and returns the unrounded HWC values as float64.
 * v = (p00·(1−fx) + p01·fx)·(1−fy) + (p10·(1−fx) + p11·fx)·fy.
 * @example resizeBilinear(img, 4, { x: 0, y: 0, w: 4, h: 2 }, 1, 2, 3) // a 1×2×3 Float64Array
 */
export function resizeBilinear(
  src: Uint8Array,
  width: number,
  region: Region,
  outH: number,
  outW: number,
  channels: number,
): Float64Array {
  const out = new Float64Array(outH * outW * channels);
  const ys = axisSamples(outH, region.h);
  const xs = axisSamples(outW, region.w);
  for (let oy = 0; oy < outH; oy++) {
    const fy = ys.f[oy] ?? 0;
    const r0 = ((ys.i0[oy] ?? 0) + region.y) * width;
    const r1 = ((ys.i1[oy] ?? 0) + region.y) * width;
    for (let ox = 0; ox < outW; ox++) {
      const fx = xs.f[ox] ?? 0;
      const c0 = (xs.i0[ox] ?? 0) + region.x;
      const c1 = (xs.i1[ox] ?? 0) + region.x;
      const o = (oy * outW + ox) * channels;
      for (let c = 0; c < channels; c++) {
        const p00 = src[(r0 + c0) * channels + c] ?? 0;
        const p01 = src[(r0 + c1) * channels + c] ?? 0;
        const p10 = src[(r1 + c0) * channels + c] ?? 0;
        const p11 = src[(r1 + c1) * channels + c] ?? 0;
        const top = p00 * (1 - fx) + p01 * fx;
        const bottom = p10 * (1 - fx) + p11 * fx;
        out[o + c] = top * (1 - fy) + bottom * fy;
      }
    }
  }
  return out;
}
