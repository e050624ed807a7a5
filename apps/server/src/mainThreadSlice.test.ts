// The event loop's thread asks Linux (EEVDF, 6.12+) for the smallest slice, so that it preempts model workers when
// it wakes. Checked on a child process's thread: this one's scheduling is left alone.
import { execFileSync, spawn } from 'node:child_process';
import { getPriority, release } from 'node:os';
import { afterEach, describe, expect, it } from 'vitest';
import { MAIN_THREAD_SLICE_NS, setThreadSlice, threadSlice } from './mainThreadSlice.ts';

const [major = 0, minor = 0] = release().split('.').map(Number);
const kernelHasSlices = process.platform === 'linux' && (major > 6 || (major === 6 && minor >= 12));

describe('setThreadSlice', () => {
  const children: ReturnType<typeof spawn>[] = [];
  const sleeper = () => {
    const child = spawn('nice', ['-n', '3', 'sleep', '60'], { stdio: 'ignore' });
    children.push(child);
    return child.pid!;
  };
  afterEach(() => children.splice(0).forEach((c) => c.kill()));

  it.runIf(kernelHasSlices)('gives the thread the slice asked for, keeping its nice value', async () => {
    const pid = sleeper();
    const before = await threadSlice(pid);
    expect(before).toBeGreaterThan(MAIN_THREAD_SLICE_NS);
    expect(await setThreadSlice(pid, MAIN_THREAD_SLICE_NS, 'python3')).toBeUndefined();
    expect(await threadSlice(pid)).toBe(MAIN_THREAD_SLICE_NS);
    expect(getPriority(pid)).toBe(Math.min(19, getPriority() + 3));
  });

  it.runIf(kernelHasSlices)('keeps a batch policy, and leaves an idle thread alone', async () => {
    const batch = sleeper();
    execFileSync('chrt', ['-b', '-p', '0', String(batch)]);
    expect(await setThreadSlice(batch, MAIN_THREAD_SLICE_NS, 'python3')).toBeUndefined();
    expect(execFileSync('chrt', ['-p', String(batch)], { encoding: 'utf8' })).toMatch(/SCHED_BATCH/);
    const idle = sleeper();
    execFileSync('chrt', ['-i', '-p', '0', String(idle)]);
    expect(await setThreadSlice(idle, MAIN_THREAD_SLICE_NS, 'python3')).toMatch(/policy \(5\) is not a fair one/);
  });

  it.runIf(process.platform === 'linux')('says why when it cannot: no interpreter, no such thread', async () => {
    expect(await setThreadSlice(sleeper(), MAIN_THREAD_SLICE_NS, 'no-such-python3')).toMatch(/ENOENT/);
    expect(await setThreadSlice(2 ** 22 + 7, MAIN_THREAD_SLICE_NS, 'python3')).toMatch(/No such process/);
  });
});
