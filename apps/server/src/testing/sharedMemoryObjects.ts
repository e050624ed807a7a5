import { rmSync, writeFileSync } from 'node:fs';

/**
 * POSIX shared memory objects for a test, made under /dev/shm as a client's `shm_open` makes them, and removed by
 * `removeAll`. Their names carry `tag` and the process id, so test files running side by side never share one.
 * @example const shm = sharedMemoryObjects('http'); const key = shm.object('in', 1024); … shm.removeAll();
 */
export function sharedMemoryObjects(tag: string) {
  const prefix = `studio-${tag}-${process.pid}`;
  const made: string[] = [];
  return {
    prefix,
    /** An object of `bytes` (or that many zero bytes); returns its key as a client passes it (`/name`). */
    object(name: string, bytes: Uint8Array | number): string {
      const path = `/dev/shm/${prefix}-${name}`;
      writeFileSync(path, typeof bytes === 'number' ? Buffer.alloc(bytes) : bytes);
      made.push(path);
      return `/${prefix}-${name}`;
    },
    /** Something else made under /dev/shm for the test, removed with the objects. */
    track(path: string): void {
      made.push(path);
    },
    removeAll(): void {
      for (const p of made.splice(0)) rmSync(p, { recursive: true, force: true });
    },
  };
}
