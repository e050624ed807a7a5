import { spawn } from 'node:child_process';
import { describe, expect, it, vi } from 'vitest';
import { watchStubHealth, watchWhileBusy } from './stubHealth.ts';

// A real process, stopped and continued with real signals: the watch reads its state from the kernel.

async function withSleeper(test: (pid: number) => Promise<void>): Promise<void> {
  const child = spawn('sleep', ['30'], { stdio: 'ignore' });
  try {
    await test(child.pid!);
  } finally {
    child.kill('SIGKILL');
  }
}

const after = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('watchStubHealth', () => {
  it('calls unhealthy once a process has stayed stopped for the timeout', async () => {
    await withSleeper(async (pid) => {
      let calls = 0;
      process.kill(pid, 'SIGSTOP');
      const t0 = performance.now();
      const health = watchStubHealth(pid, () => calls++, 1000);
      await expect.poll(() => calls, { timeout: 5000, interval: 50 }).toBe(1);
      expect(performance.now() - t0).toBeGreaterThanOrEqual(1000);
      await after(1200);
      expect(calls).toBe(1);
      health.stop();
    });
  });

  it('leaves a running process, and one stopped for a moment and continued, healthy', async () => {
    await withSleeper(async (pid) => {
      let calls = 0;
      const health = watchStubHealth(pid, () => calls++, 1000);
      await after(1200);
      process.kill(pid, 'SIGSTOP');
      await after(600);
      process.kill(pid, 'SIGCONT');
      await after(1500);
      expect(calls).toBe(0);
      health.stop();
    });
  });

  it('does nothing once stopped, nor for a process that is gone', async () => {
    let calls = 0;
    await withSleeper(async (pid) => {
      process.kill(pid, 'SIGSTOP');
      watchStubHealth(pid, () => calls++, 1000).stop();
    });
    const child = spawn('true');
    await new Promise((r) => child.on('exit', r));
    const gone = watchStubHealth(child.pid!, () => calls++, 1000);
    await after(2000);
    gone.stop();
    expect(calls).toBe(0);
  });
});

describe('watchWhileBusy', () => {
  it('reports a stub that stays stopped while busy, and none once it is idle', async () => {
    await withSleeper(async (pid) => {
      let calls = 0;
      process.kill(pid, 'SIGSTOP');
      const watch = watchWhileBusy(1000);
      watch(pid, () => calls++);
      await expect.poll(() => calls, { timeout: 5000, interval: 50 }).toBe(1);
      watch(pid, () => calls++);
      await after(300);
      watch(undefined);
      await after(2000);
      expect(calls).toBe(1);
    });
  });

  it('keeps one timer through busy stretches one after another, and drops it once a tick finds the stub idle', async () => {
    await withSleeper(async (pid) => {
      const made = vi.spyOn(globalThis, 'setInterval');
      try {
        const watch = watchWhileBusy(1000);
        for (let request = 0; request < 100; request++) {
          watch(pid, () => {});
          watch(undefined);
        }
        expect(made).toHaveBeenCalledTimes(1);
        await after(700); // past a tick (every 500 ms at this timeout), which found it idle
        watch(pid, () => {});
        expect(made).toHaveBeenCalledTimes(2);
        watch(undefined);
      } finally {
        made.mockRestore();
      }
    });
  });
});
