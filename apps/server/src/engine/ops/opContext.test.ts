import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createOpContext } from './opContext.ts';
import { tempDir } from '../../testing/tempDir.ts';

describe('createOpContext', () => {
  const repo = tempDir('opctx-');
  mkdirSync(join(repo, 'rec'));
  writeFileSync(join(repo, 'rec', 'dict.txt'), 'a\nb\n');
  const outside = tempDir('opctx-out-');
  writeFileSync(join(outside, 'secret.txt'), 'secret');
  symlinkSync(join(outside, 'secret.txt'), join(repo, 'rec', 'link.txt'));

  it('reads repository files', () => {
    expect(createOpContext(repo).readText('rec/dict.txt')).toBe('a\nb\n');
  });

  it('refuses paths that leave the repository, symlinks included', () => {
    const ctx = createOpContext(repo);
    for (const p of ['../x.txt', join(outside, 'secret.txt'), 'rec/link.txt'])
      expect(() => ctx.readText(p), p).toThrow();
  });
});
