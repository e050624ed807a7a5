import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { PathError, isSafeName, safeJoin } from './safeJoin.ts';
import { tempDir } from '../testing/tempDir.ts';

const root = tempDir('safejoin-');
const outside = tempDir('outside-');
mkdirSync(join(root, 'ocr', '1'), { recursive: true });
writeFileSync(join(outside, 'secret.txt'), 'secret');
symlinkSync(outside, join(root, 'escape'));
mkdirSync(join(root, 'inner'));
symlinkSync(join(root, 'ocr'), join(root, 'inner', 'ok-link'));

describe('safeJoin', () => {
  it('joins plain relative paths inside the repository', () => {
    expect(safeJoin(root, 'ocr/studio.json')).toBe(join(root, 'ocr', 'studio.json'));
    expect(safeJoin(root, 'new/dir/file.txt')).toBe(join(root, 'new', 'dir', 'file.txt'));
  });

  it.each([
    ['..', /\.\./],
    ['../x', /\.\./],
    ['ocr/../../x', /\.\./],
    ['/etc/passwd', /absolute/],
    ['C:/x', /absolute/],
    ['ocr\\..\\..\\x', /backslash/],
    ['ocr%2f..%2fx', /encoded/],
    ['%2e%2e/x', /encoded/],
    ['ocr%5Cx', /encoded/],
    ['ocr\0x', /NUL/],
    ['', /empty/],
  ])('refuses %j', (p, msg) => {
    expect(() => safeJoin(root, p)).toThrow(PathError);
    expect(() => safeJoin(root, p)).toThrow(msg);
  });

  it('refuses symlinks that lead outside, even to files that do not exist yet', () => {
    expect(() => safeJoin(root, 'escape/secret.txt')).toThrow(/symlink/);
    expect(() => safeJoin(root, 'escape/new/file')).toThrow(/symlink/);
  });

  it('allows symlinks that stay inside the repository', () => {
    expect(safeJoin(root, 'inner/ok-link/1')).toBe(join(root, 'inner', 'ok-link', '1'));
  });
});

describe('isSafeName', () => {
  it('accepts Triton-like names and rejects path-like ones', () => {
    expect(isSafeName('vad-stream')).toBe(true);
    expect(isSafeName('model_1.v2')).toBe(true);
    for (const bad of ['', '.', '..', 'a/b', '../a', 'a..b', '.hidden', 'a b', 'x\0', 42])
      expect(isSafeName(bad)).toBe(false);
  });
});
