import { readFileSync } from 'node:fs';
import type { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
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
});
