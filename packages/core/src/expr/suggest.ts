/** Levenshtein edit distance (insert, delete, substitute), O(a·b) time and O(b) memory. */
export function editDistance(a: string, b: string): number {
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const cur = [i];
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      cur[j] = Math.min(prev[j]! + 1, cur[j - 1]! + 1, prev[j - 1]! + cost);
    }
    prev = cur;
  }
  return prev[b.length]!;
}

/**
 * The candidate closest to `name` (case-insensitive edit distance), or undefined when none is close enough
 * to be a plausible typo (distance above a third of the longer name, at least 2 allowed).
 * @example closestName('scroes', ['boxes', 'scores']) // 'scores'
 */
export function closestName(name: string, candidates: readonly string[]): string | undefined {
  let best: string | undefined;
  let bestDistance = Infinity;
  const lower = name.toLowerCase().slice(0, 64);
  for (const c of candidates) {
    const d = editDistance(lower, c.toLowerCase().slice(0, 64));
    if (d < bestDistance) {
      best = c;
      bestDistance = d;
    }
  }
  if (best === undefined) return undefined;
  const allowed = Math.max(2, Math.floor(Math.max(name.length, best.length) / 3));
  return bestDistance <= allowed ? best : undefined;
}
