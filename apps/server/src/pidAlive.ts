/**
 * Whether a process with this pid exists (one of another user's counts: signalling it is refused, not unknown).
 * @example pidAlive(process.pid) === true
 */
export function pidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}
