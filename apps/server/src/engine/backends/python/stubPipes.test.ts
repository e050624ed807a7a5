import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { afterStderr } from './stubPipes.ts';

describe('afterStderr', () => {
  it('waits for the rest of a stub’s stderr before it goes on', async () => {
    const stderr = new PassThrough();
    const read: string[] = [];
    stderr.on('data', (c: Buffer) => read.push(c.toString()));
    const seen = new Promise<string[]>((resolve) => afterStderr(stderr, () => resolve([...read])));
    setTimeout(() => stderr.end('ModuleNotFoundError: No module named numpy\n'), 20);
    expect(await seen).toEqual(['ModuleNotFoundError: No module named numpy\n']);
  });

  it('goes on at once when it has ended, and without the end when it never comes', async () => {
    const ended = new PassThrough();
    ended.resume();
    ended.end();
    await new Promise((r) => ended.once('end', r));
    let now = false;
    afterStderr(ended, () => (now = true));
    expect(now).toBe(true);

    const held = new PassThrough(); // a pipe a grandchild of the stub still holds open
    held.resume();
    await new Promise<void>((resolve) => afterStderr(held, resolve));
  });
});
