/**
 * Rotated rectangles for DB post-processing, as PaddleOCR gets them from OpenCV (`minAreaRect`,
 * `get_mini_boxes`). Only +, −, ×, ÷ and sqrt in a fixed order, so the generated numpy code
 * (compile/python/ops/db_postprocess.ts) computes the same doubles.
 */

/**
 * A rectangle in its own frame: a point is (ox, oy) + a·(ux, uy) + b·(−uy, ux) for a in [a0, a1],
 * b in [b0, b1]; (ux, uy) is a unit vector along one of its sides.
 */
export interface Rect {
  ox: number;
  oy: number;
  ux: number;
  uy: number;
  a0: number;
  a1: number;
  b0: number;
  b1: number;
}

/**
 * Convex hull (Andrew's monotone chain) of integer points given flat as x0, y0, x1, y1, …: the
 * vertices without collinear ones, starting at the smallest (x, y); fewer than 3 when all points
 * are on one line.
 * @example convexHull([0, 0, 2, 0, 1, 0, 0, 1]) // [[0, 0], [2, 0], [0, 1]]
 */
export function convexHull(flat: number[]): [number, number][] {
  const pts: [number, number][] = [];
  for (let i = 0; i + 1 < flat.length; i += 2) pts.push([flat[i]!, flat[i + 1]!]);
  pts.sort((p, q) => p[0] - q[0] || p[1] - q[1]);
  const unique = pts.filter((p, i) => i === 0 || p[0] !== pts[i - 1]![0] || p[1] !== pts[i - 1]![1]);
  if (unique.length < 3) return unique;
  const cross = (o: [number, number], a: [number, number], b: [number, number]) =>
    (a[0] - o[0]) * (b[1] - o[1]) - (a[1] - o[1]) * (b[0] - o[0]);
  const half = (list: [number, number][]) => {
    const h: [number, number][] = [];
    for (const p of list) {
      while (h.length >= 2 && cross(h[h.length - 2]!, h[h.length - 1]!, p) <= 0) h.pop();
      h.push(p);
    }
    h.pop();
    return h;
  };
  return [...half(unique), ...half([...unique].reverse())];
}

/**
 * The smallest-area rectangle around a convex polygon (rotating calipers: one side lies on a hull
 * edge; the first edge of least area wins). Undefined for fewer than 3 vertices (no area).
 */
export function minAreaRect(hull: [number, number][]): Rect | undefined {
  const n = hull.length;
  if (n < 3) return undefined;
  let best: Rect | undefined;
  let bestArea = Infinity;
  for (let i = 0; i < n; i++) {
    const [ox, oy] = hull[i]!;
    const [qx, qy] = hull[(i + 1) % n]!;
    const dx = qx - ox;
    const dy = qy - oy;
    const len = Math.sqrt(dx * dx + dy * dy);
    const ux = dx / len;
    const uy = dy / len;
    let [a0, a1, b0, b1] = [Infinity, -Infinity, Infinity, -Infinity];
    for (const [px, py] of hull) {
      const rx = px - ox;
      const ry = py - oy;
      const a = rx * ux + ry * uy;
      const b = ry * ux - rx * uy;
      a0 = Math.min(a0, a);
      a1 = Math.max(a1, a);
      b0 = Math.min(b0, b);
      b1 = Math.max(b1, b);
    }
    const area = (a1 - a0) * (b1 - b0);
    if (area < bestArea) {
      bestArea = area;
      best = { ox, oy, ux, uy, a0, a1, b0, b1 };
    }
  }
  return best;
}

/** The rectangle grown by `d` on every side. */
export function grow(r: Rect, d: number): Rect {
  return { ...r, a0: r.a0 - d, a1: r.a1 + d, b0: r.b0 - d, b1: r.b1 + d };
}

/** Euclidean distance between two points (sqrt of the sum of squares, no `hypot`: numpy computes the same double). */
export function distance(p: [number, number], q: [number, number]): number {
  return Math.sqrt((p[0] - q[0]) * (p[0] - q[0]) + (p[1] - q[1]) * (p[1] - q[1]));
}

/** The corners of `r` in its own order: (a0,b0), (a1,b0), (a1,b1), (a0,b1). */
function corners(r: Rect): [number, number][] {
  const at = (a: number, b: number): [number, number] => [r.ox + a * r.ux - b * r.uy, r.oy + a * r.uy + b * r.ux];
  return [at(r.a0, r.b0), at(r.a1, r.b0), at(r.a1, r.b1), at(r.a0, r.b1)];
}

/**
 * The corners of `r` in PaddleOCR's `get_mini_boxes` order: of the two leftmost corners, the upper
 * is first and the lower last; of the two rightmost, the upper is second and the lower third
 * (top-left, top-right, bottom-right, bottom-left for a rectangle tilted less than 45°).
 */
export function orderedCorners(r: Rect): [number, number][] {
  const p = corners(r).sort((s, t) => s[0] - t[0]);
  const [i1, i4] = p[1]![1] > p[0]![1] ? [0, 1] : [1, 0];
  const [i2, i3] = p[3]![1] > p[2]![1] ? [2, 3] : [3, 2];
  return [p[i1]!, p[i2]!, p[i3]!, p[i4]!];
}

/** How far outside a side a pixel centre may lie and still count as inside (rounding of the frame). */
const EDGE = 1e-6;

/**
 * Mean of `map` ([h, w] row-major) over the pixels whose centres lie in `r` (edges included), summed
 * in raster order — PaddleOCR's `box_score_fast`, which fills the box polygon; 0 when none does.
 */
export function meanInRect(map: Float32Array, h: number, w: number, r: Rect): number {
  const cs = corners(r);
  const clamp = (v: number, hi: number) => Math.min(Math.max(v, 0), hi);
  const x0 = clamp(Math.floor(Math.min(...cs.map((c) => c[0]))), w - 1);
  const x1 = clamp(Math.ceil(Math.max(...cs.map((c) => c[0]))), w - 1);
  const y0 = clamp(Math.floor(Math.min(...cs.map((c) => c[1]))), h - 1);
  const y1 = clamp(Math.ceil(Math.max(...cs.map((c) => c[1]))), h - 1);
  let sum = 0;
  let count = 0;
  for (let y = y0; y <= y1; y++) {
    const ry = y - r.oy;
    for (let x = x0; x <= x1; x++) {
      const rx = x - r.ox;
      const a = rx * r.ux + ry * r.uy;
      const b = ry * r.ux - rx * r.uy;
      if (a >= r.a0 - EDGE && a <= r.a1 + EDGE && b >= r.b0 - EDGE && b <= r.b1 + EDGE) {
        sum += map[y * w + x]!;
        count++;
      }
    }
  }
  return count === 0 ? 0 : sum / count;
}
