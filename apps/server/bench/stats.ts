// The bench's statistics: medians and ranges over blocks, and the order in which contenders take turns.

/** A measured value over blocks: the median of the per-block values, their extremes, and each block's value in order. */
export interface Range {
  min: number;
  median: number;
  max: number;
  blocks: number[];
}

/**
 * The value at quantile `p` (0..1) of `xs`, by the nearest-rank rule (no interpolation).
 * @example percentile([5, 1, 3], 0.5) // 3
 */
export function percentile(xs: readonly number[], p: number): number {
  if (xs.length === 0) throw new Error('percentile of no values: a measurement produced no samples');
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.max(0, Math.floor(s.length * p)))]!;
}

/**
 * The median of `xs`: the middle value, or the mean of the two middle values for an even count.
 * @example median([4, 1, 3, 2]) // 2.5
 */
export function median(xs: readonly number[]): number {
  if (xs.length === 0) throw new Error('median of no values: a measurement produced no samples');
  const s = [...xs].sort((a, b) => a - b);
  const mid = s.length >> 1;
  return s.length % 2 === 1 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
}

/**
 * min, median and max of per-block values, keeping the blocks in the order they ran.
 * @example summarize([1.1, 0.9, 1.0]) // { min: 0.9, median: 1.0, max: 1.1, blocks: [1.1, 0.9, 1.0] }
 */
export function summarize(blocks: readonly number[]): Range {
  return { min: Math.min(...blocks), median: median(blocks), max: Math.max(...blocks), blocks: [...blocks] };
}

/**
 * Combines per-block values of two measurements block by block (a ratio of a block's engine and its ceiling,
 * both measured in that block), so that drift between blocks cancels instead of widening the range.
 * @example perBlock([10, 12], [5, 4], (a, b) => a / b) // [2, 3]
 */
export function perBlock(a: readonly number[], b: readonly number[], f: (a: number, b: number) => number): number[] {
  if (a.length !== b.length) throw new Error(`perBlock: ${a.length} blocks against ${b.length}`);
  return a.map((x, i) => f(x, b[i]!));
}

/**
 * The order in which `n` contenders run: for each block, `trials` rounds, each round every contender once.
 * Each round starts one contender later than the one before (continuing across blocks), so every contender runs
 * first, second, … equally often: a cost that depends on position in the round (a cache left warm, a worker
 * left awake by the previous contender) hits them all alike.
 * @example interleaveOrder(2, 1, 2) // [[[0, 1], [1, 0]]]
 */
export function interleaveOrder(n: number, blocks: number, trials: number): number[][][] {
  if (n < 1 || blocks < 1 || trials < 1)
    throw new Error(`interleaveOrder: needs at least one contender, block and trial (got ${n}, ${blocks}, ${trials})`);
  return Array.from({ length: blocks }, (_, b) =>
    Array.from({ length: trials }, (_, r) => {
      const shift = (b * trials + r) % n;
      return Array.from({ length: n }, (_, k) => (k + shift) % n);
    }),
  );
}
