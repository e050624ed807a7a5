import { readdirSync, readFileSync } from 'node:fs';

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

/**
 * The live Python stubs (`stub.py`) descending from process `root` (through the stub spawner), by pid, sorted.
 * @example expect(stubsDescendingFrom(process.pid)).toEqual([])
 */
export function stubsDescendingFrom(root: number): number[] {
  const parent = new Map<number, number>();
  const stubs = new Set<number>();
  for (const d of readdirSync('/proc')) {
    if (!/^\d+$/.test(d)) continue;
    try {
      const stat = readFileSync(`/proc/${d}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      if (fields[0] === 'Z') continue;
      parent.set(Number(d), Number(fields[1]));
      if (readFileSync(`/proc/${d}/cmdline`, 'utf8').includes('stub.py')) stubs.add(Number(d));
    } catch {
      // gone meanwhile
    }
  }
  const descends = (pid: number): boolean => {
    for (let p = parent.get(pid); p !== undefined && p > 1; p = parent.get(p)) if (p === root) return true;
    return false;
  };
  return [...stubs].filter(descends).sort();
}
