// The bench's per-trial usage: descendants are scanned from /proc only when they may have changed, never before
// every trial (a scan's CPU right before a trial slowed the python round trip it timed), and a live child's CPU counts.
import { spawn } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { childPids, DescendantPids, startUsage } from './usage.ts';

describe('DescendantPids', () => {
  it('scans once, then again only after a warm-up trial or when a listed process has gone', () => {
    let next = [process.pid];
    const d = new DescendantPids(() => next);
    expect(d.pids()).toEqual([process.pid]);
    for (let trial = 0; trial < 5; trial++) {
      d.pids();
      d.afterTrial(false);
    }
    expect(d.scans).toBe(1);
    next = [process.pid, process.ppid];
    d.afterTrial(true);
    expect(d.scans).toBe(2);
    expect(d.pids()).toEqual([process.pid, process.ppid]);
    next = [process.pid];
    const gone = new DescendantPids(() => [2 ** 22 + 1]); // above pid_max's default: never a live process
    gone.pids();
    gone.afterTrial(false);
    expect(gone.scans).toBe(2);
  });

  it('lists a child that was started, and counts its CPU in a trial', async () => {
    const child = spawn(process.execPath, [
      '-e',
      'const t = Date.now(); while (Date.now() - t < 300); setTimeout(() => {}, 5000)',
    ]);
    try {
      await new Promise((r) => child.once('spawn', r));
      const d = new DescendantPids();
      expect(d.pids()).toContain(child.pid);
      expect(childPids()).toContain(child.pid);
      const stop = startUsage(d.pids());
      await new Promise((r) => setTimeout(r, 350));
      // /proc counts CPU in 10 ms ticks: well over 100 ms of the child's 300 ms busy loop fall in the trial.
      expect((await stop()).cpuUs).toBeGreaterThan(100_000);
    } finally {
      child.kill('SIGKILL');
    }
  });
});
