/** `-1, -1, 3` ↔ [-1, -1, 3]; returns null for text that is not a list of integers ≥ -1. */
export function parseDims(text: string): number[] | null {
  const parts = text
    .replace(/[[\]\s]/g, '')
    .split(',')
    .filter((p) => p !== '');
  const dims = parts.map(Number);
  return dims.every((d) => Number.isInteger(d) && d >= -1) ? dims : null;
}

export const formatDims = (dims: readonly number[]): string => dims.join(', ');
