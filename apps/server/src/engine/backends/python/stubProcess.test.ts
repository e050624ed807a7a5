import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { tempDir } from '../../../testing/tempDir.ts';
import { startStub, type StubChild } from './stubProcess.ts';

const PYTHON = '/usr/bin/python3';

// Echoes what arrives on fd 3, then on fd 5, to fd 4 until EOF, says hello on stdout and stderr, exits 7.
const ECHO = `
import os, sys
print("hello out", flush=True)
print("hello err", file=sys.stderr, flush=True)
for fd in (3, 5):
    while True:
        b = os.read(fd, 65536)
        if not b:
            break
        os.write(4, b)
sys.exit(7)
`;

const parentOf = (pid: number): number => {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
};

const text = (r: Readable): Promise<string> =>
  new Promise((resolve) => {
    let s = '';
    r.on('data', (c: Buffer) => (s += c.toString('utf8')));
    r.on('end', () => resolve(s));
  });

const exited = (c: StubChild) =>
  new Promise<[number | null, string | null]>((resolve) => c.onExit((code, signal) => resolve([code, signal])));

describe('startStub', () => {
  it('starts the process from the helper (not a fork of this one) and hands over its pipes', async () => {
    const child = await startStub({ file: PYTHON, args: ['-c', ECHO], env: process.env, cwd: '/', stdout: true });
    expect(parentOf(child.pid)).not.toBe(process.pid);
    expect(parentOf(parentOf(child.pid))).toBe(process.pid);
    const back = text(child.pipes.fromPy);
    const out = text(child.pipes.stdout!);
    const err = text(child.pipes.stderr);
    child.pipes.toPy.end('ping over fd 3, ');
    child.pipes.toPyAtOnce.end('ping over fd 5');
    expect(await back).toBe('ping over fd 3, ping over fd 5');
    expect(await out).toBe('hello out\n');
    expect(await err).toBe('hello err\n');
    expect(await exited(child)).toEqual([7, null]);
    // Heard of after the fact, too.
    expect(await exited(child)).toEqual([7, null]);
  });

  it('reports a kill, and leaves fd 1 to nobody when stdout is not asked for', async () => {
    const child = await startStub({
      file: PYTHON,
      args: ['-c', 'import time\ntime.sleep(60)'],
      env: process.env,
      cwd: '/',
      stdout: false,
    });
    expect(child.pipes.stdout).toBeNull();
    child.kill('SIGKILL');
    expect(await exited(child)).toEqual([null, 'SIGKILL']);
  });

  it('rejects with the spawn error and its code when the interpreter is missing', async () => {
    await expect(
      startStub({ file: '/nonexistent/python3', args: [], env: process.env, cwd: '/', stdout: false }),
    ).rejects.toMatchObject({ code: 'ENOENT' });
  });

  it('hands over what stubs wrote, and their pipes, though they exited before the server took them', async () => {
    // Each python writes to stderr and exits at once; this thread is held meanwhile, so it takes none of the pipes
    // until the stubs have gone. The helper used to read the pipes it held (Node reads a child's pipe as it makes it):
    // what the stubs wrote was lost there, and a pipe read to its end closed and went over without its handle (a stub
    // made of the missing pipes then threw on its exit: `studio serve` over the examples, with a python lacking
    // numpy, died, and the survivors' load errors had lost the traceback that named numpy).
    const starts = Array.from({ length: 4 }, () =>
      startStub({
        file: PYTHON,
        args: ['-c', 'import sys; print("gone", file=sys.stderr); sys.exit(3)'],
        env: process.env,
        cwd: '/',
        stdout: true,
      }),
    );
    Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 1500);
    for (const child of await Promise.all(starts)) {
      expect(await text(child.pipes.stderr)).toBe('gone\n');
      expect(await exited(child)).toEqual([3, null]);
    }
  });

  it('ends with a server killed before it took the pipes of a stub it started', async () => {
    const dir = tempDir('stub-orphan-');
    const pidFile = join(dir, 'pid');
    // The server asks for a stub, then holds its event loop (so it never acknowledges the pipes the helper sends)
    // until the stub runs, and dies by SIGKILL: the helper must still see it gone and end the stub.
    const server = `
      import { existsSync } from 'node:fs';
      import { startStub } from ${JSON.stringify(join(import.meta.dirname, 'stubProcess.ts'))};
      void startStub({ file: '/bin/sh', args: ['-c', 'echo $$ > ${pidFile}.tmp && mv ${pidFile}.tmp ${pidFile} && exec sleep 60'], env: {}, cwd: '/', stdout: false });
      const nap = new Int32Array(new SharedArrayBuffer(4));
      while (!existsSync(${JSON.stringify(pidFile)})) Atomics.wait(nap, 0, 0, 5);
      process.kill(process.pid, 'SIGKILL');
    `;
    const r = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', server], {
      stdio: 'inherit',
    });
    expect(r.signal).toBe('SIGKILL');
    const stub = Number(readFileSync(pidFile, 'utf8'));
    const helper = parentOf(stub);
    try {
      await expect.poll(() => existsSync(`/proc/${stub}`), { timeout: 10_000, interval: 50 }).toBe(false);
    } finally {
      // Without the fix both would live on: leave neither behind.
      for (const pid of [stub, helper]) if (existsSync(`/proc/${pid}`) && pid > 1) process.kill(pid, 'SIGKILL');
    }
  });
});
