// The event loop's thread asks Linux for real-time (SCHED_RR 1, reset on fork) or, refused that, the smallest
// slice (EEVDF, 6.12+), so that it preempts model workers when it wakes. Checked on a child process's thread:
// this one's scheduling is left alone.
import { execFileSync, spawn } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { getPriority, release, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { EVENT_LOOP_SLICE_NS, describePriority, eventLoopPlan, raiseThread, threadSlice } from './eventLoopPriority.ts';

const [major = 0, minor = 0] = release().split('.').map(Number);
const linux = process.platform === 'linux';
const kernelHasSlices = linux && (major > 6 || (major === 6 && minor >= 12));
const root = linux && process.getuid?.() === 0;
const NOBODY = 65534;
// The system's interpreter: one under root's home (pyenv) is not nobody's to run.
const SYSTEM_PYTHON = '/usr/bin/python3';

const policyOf = (pid: number) => execFileSync('chrt', ['-p', String(pid)], { encoding: 'utf8' });

describe('raiseThread', () => {
  const children: ReturnType<typeof spawn>[] = [];
  const sleeper = (uid?: number) => {
    const ids = uid === undefined ? {} : { uid, gid: uid };
    const child = spawn('nice', ['-n', '3', 'sleep', '60'], { stdio: 'ignore', ...ids });
    children.push(child);
    return child.pid!;
  };
  afterEach(() => children.splice(0).forEach((c) => c.kill()));
  const dir = mkdtempSync(join(tmpdir(), 'studio-priority-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it.runIf(root)('makes the thread SCHED_RR 1, and what it starts afterwards fair, where it may', async () => {
    // A shell that, once raised, starts a process and prints that one's policy.
    const shell = spawn('sh', ['-c', 'read go; sleep 30 & chrt -p $!; kill $!'], {
      stdio: ['pipe', 'pipe', 'inherit'],
    });
    children.push(shell);
    let printed = '';
    shell.stdout!.on('data', (d: Buffer) => (printed += String(d)));
    const exited = new Promise((resolve) => shell.on('exit', resolve));
    expect(await raiseThread(shell.pid!, { python: 'python3', realtime: true })).toEqual({ policy: 'realtime' });
    expect(policyOf(shell.pid!)).toMatch(/SCHED_RR\|SCHED_RESET_ON_FORK\n.*priority: 1/);
    shell.stdin!.end('go\n');
    await exited;
    expect(printed).toMatch(/policy: SCHED_OTHER\n.*priority: 0/);
  });

  it.runIf(root && kernelHasSlices && existsSync(SYSTEM_PYTHON))(
    'falls back to the slice, saying why, where real-time is refused',
    async () => {
      // python3 as nobody (no CAP_SYS_NICE, RLIMIT_RTPRIO 0), on nobody's own sleeper.
      const python = join(dir, 'python-as-nobody');
      writeFileSync(
        python,
        `#!/bin/sh\nexec setpriv --reuid=${NOBODY} --regid=${NOBODY} --clear-groups ${SYSTEM_PYTHON} "$@"\n`,
      );
      chmodSync(python, 0o755);
      const pid = sleeper(NOBODY);
      const got = await raiseThread(pid, { python, realtime: true });
      expect(got).toEqual({ policy: 'slice', notRealtime: 'real-time refused: Operation not permitted' });
      expect(describePriority(got)).toBe(
        'event loop: a 100 µs scheduler slice (real-time refused: Operation not permitted)',
      );
      expect(policyOf(pid)).toMatch(/SCHED_OTHER/);
      expect(await threadSlice(pid)).toBe(EVENT_LOOP_SLICE_NS);
    },
  );

  it.runIf(kernelHasSlices)('gives the slice when real-time is not wanted, keeping the nice value', async () => {
    const pid = sleeper();
    const before = await threadSlice(pid);
    expect(before).toBeGreaterThan(EVENT_LOOP_SLICE_NS);
    expect(await raiseThread(pid, { python: 'python3', realtime: false })).toEqual({ policy: 'slice' });
    expect(await threadSlice(pid)).toBe(EVENT_LOOP_SLICE_NS);
    expect(getPriority(pid)).toBe(Math.min(19, getPriority() + 3));
  });

  it.runIf(kernelHasSlices)('keeps a batch policy, and leaves an idle thread alone', async () => {
    const batch = sleeper();
    execFileSync('chrt', ['-b', '-p', '0', String(batch)]);
    expect(await raiseThread(batch, { python: 'python3', realtime: false })).toEqual({ policy: 'slice' });
    expect(policyOf(batch)).toMatch(/SCHED_BATCH/);
    const idle = sleeper();
    execFileSync('chrt', ['-i', '-p', '0', String(idle)]);
    const got = await raiseThread(idle, { python: 'python3', realtime: true });
    expect(got).toEqual({ policy: 'unchanged', why: 'its scheduling policy (5) is not a fair one' });
    expect(policyOf(idle)).toMatch(/SCHED_IDLE/);
  });

  it.runIf(linux)('says why when it cannot: no interpreter, no such thread', async () => {
    const none = await raiseThread(sleeper(), { python: 'no-such-python3', realtime: true });
    expect(none).toMatchObject({ policy: 'unchanged', why: expect.stringMatching(/ENOENT/) });
    const gone = await raiseThread(2 ** 22 + 7, { python: 'python3', realtime: true });
    expect(gone).toMatchObject({ policy: 'unchanged', why: expect.stringMatching(/No such process/) });
    expect(describePriority(gone)).toMatch(/^event loop: default scheduling \(.*No such process/);
  });
});

describe('eventLoopPlan', () => {
  it('asks for real-time on two CPUs or more, the slice on fewer, nothing when off', () => {
    expect(eventLoopPlan('realtime', 2)).toEqual({ realtime: true });
    expect(eventLoopPlan('realtime', 1)).toEqual({
      realtime: false,
      notRealtime: 'one CPU: a real-time loop would starve the model workers',
    });
    expect(eventLoopPlan('realtime', 1.5)).toEqual({
      realtime: false,
      notRealtime: '1.5 CPUs: a real-time loop would starve the model workers',
    });
    expect(eventLoopPlan('slice', 16)).toEqual({ realtime: false });
    expect(eventLoopPlan('off', 16)).toBeUndefined();
  });
});
