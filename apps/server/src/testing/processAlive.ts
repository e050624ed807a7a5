import { readFileSync } from 'node:fs';

/**
 * Whether process `pid` is alive (Linux /proc): a zombie, left for a parent that does not reap it, counts as gone.
 * @example await expect.poll(() => processAlive(child)).toBe(false)
 */
export function processAlive(pid: number): boolean {
  try {
    return !/^\d+ \(.*\) Z/.test(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return false;
  }
}
