/** One 8-connected component of a binary map: its bounding box, run ends and raster-first run. */
export interface Component {
  minX: number;
  maxX: number;
  minY: number;
  maxY: number;
  /** The two end pixels of each of its runs, flat as x, y pairs (its convex hull's candidates). */
  ends: number[];
  /** Index of its first run in raster order (a unique tie-break). */
  first: number;
}

interface Runs {
  y: number[];
  x0: number[];
  x1: number[];
}

/**
 * Horizontal runs of pixels with value > thresh (NaN is off), in raster order (x1 inclusive). Off pixels, most of a
 * map, are skipped eight a turn while all eight are off: in a thread that has detached a buffer (every model worker)
 * each turn's reads then share one check that the buffer is still there (engine README, "Tables in plain arrays, and
 * eight reads a turn").
 */
function findRuns(map: Float32Array, h: number, w: number, thresh: number): Runs {
  const runs: Runs = { y: [], x0: [], x1: [] };
  for (let y = 0; y < h; y++) {
    const row = y * w;
    let x = 0;
    while (x < w) {
      for (let i = row + x; x + 7 < w; x += 8, i += 8)
        if (
          map[i]! > thresh ||
          map[i + 1]! > thresh ||
          map[i + 2]! > thresh ||
          map[i + 3]! > thresh ||
          map[i + 4]! > thresh ||
          map[i + 5]! > thresh ||
          map[i + 6]! > thresh ||
          map[i + 7]! > thresh
        )
          break;
      while (x < w && !(map[row + x]! > thresh)) x++;
      if (x >= w) break;
      const start = x;
      while (x < w && map[row + x]! > thresh) x++;
      runs.y.push(y);
      runs.x0.push(start);
      runs.x1.push(x - 1);
    }
  }
  return runs;
}

function find(parent: Int32Array, i: number): number {
  let r = i;
  while ((parent[r] ?? r) !== r) r = parent[r] ?? r;
  while ((parent[i] ?? i) !== r) {
    const next = parent[i] ?? i;
    parent[i] = r;
    i = next;
  }
  return r;
}

/**
 * Links runs of consecutive rows that touch, corners included (8-connected, as OpenCV's contours
 * follow a region: column ranges overlapping or one column apart); the smaller run index becomes the root.
 */
function linkRows(runs: Runs, parent: Int32Array): void {
  let prev = 0; // first run of the previous row
  let cur = 0; // first run of the current row
  const n = runs.y.length;
  while (cur < n) {
    const y = runs.y[cur] ?? 0;
    let end = cur;
    while (end < n && runs.y[end] === y) end++;
    if (prev < cur && runs.y[prev] === y - 1) {
      let a = prev;
      let b = cur;
      while (a < cur && b < end) {
        if ((runs.x0[a] ?? 0) <= (runs.x1[b] ?? 0) + 1 && (runs.x0[b] ?? 0) <= (runs.x1[a] ?? 0) + 1) {
          const ra = find(parent, a);
          const rb = find(parent, b);
          if (ra !== rb) parent[Math.max(ra, rb)] = Math.min(ra, rb);
        }
        if ((runs.x1[a] ?? 0) < (runs.x1[b] ?? 0)) a++;
        else b++;
      }
    }
    prev = cur;
    cur = end;
  }
}

/**
 * 8-connected components of `map > thresh` (map is [h, w] row-major), ordered by bounding-box
 * top-left y, then x, then first pixel in raster order. Run-based union-find; the generated numpy
 * code (compile/python/ops/db_postprocess.ts) does the same.
 * @example components(Float32Array.of(1, 0, 1), 1, 3, 0.5).length === 2
 */
export function components(map: Float32Array, h: number, w: number, thresh: number): Component[] {
  const runs = findRuns(map, h, w, thresh);
  const parent = Int32Array.from(runs.y, (_, i) => i);
  linkRows(runs, parent);
  const byRoot = new Map<number, Component>();
  for (let i = 0; i < runs.y.length; i++) {
    const root = find(parent, i);
    const y = runs.y[i] ?? 0;
    const x0 = runs.x0[i] ?? 0;
    const x1 = runs.x1[i] ?? 0;
    let c = byRoot.get(root);
    if (c === undefined) {
      c = { minX: x0, maxX: x1, minY: y, maxY: y, ends: [], first: root };
      byRoot.set(root, c);
    }
    c.minX = Math.min(c.minX, x0);
    c.maxX = Math.max(c.maxX, x1);
    c.maxY = y;
    c.ends.push(x0, y, x1, y);
  }
  return [...byRoot.values()].sort((a, b) => a.minY - b.minY || a.minX - b.minX || a.first - b.first);
}
