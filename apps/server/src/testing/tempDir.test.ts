import { spawnSync } from 'node:child_process';
import { existsSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tempDir } from './tempDir.ts';

describe('tempDir', () => {
  let madeInBeforeAll = '';
  let madeInTest = '';
  beforeAll(() => {
    madeInBeforeAll = tempDir('tempdir-beforeall-');
  });
  afterAll(() => {
    // The file's own afterAll hooks (servers closing) still find it; it goes after them.
    expect(existsSync(madeInBeforeAll)).toBe(true);
  });

  it('makes a fresh directory under os.tmpdir() named with the prefix', () => {
    madeInTest = tempDir('tempdir-test-');
    writeFileSync(join(madeInTest, 'scratch.txt'), 'x');
    expect(dirname(madeInTest)).toBe(tmpdir());
    expect(basename(madeInTest)).toMatch(/^tempdir-test-.{6}$/);
    expect(tempDir('tempdir-test-')).not.toBe(madeInTest);
  });

  it('removes a directory made in a test when that test finishes, files and all', () => {
    expect(madeInTest).not.toBe('');
    expect(existsSync(madeInTest)).toBe(false);
  });

  it('keeps a directory made in beforeAll for the whole file', () => {
    expect(existsSync(madeInBeforeAll)).toBe(true);
  });
});

describe('the run temp directory', () => {
  it('is a per-run directory the test workers and their child processes share', () => {
    expect(basename(tmpdir())).toMatch(/^studio-test-run-\d+-/);
    const child = spawnSync(process.execPath, ['-e', 'process.stdout.write(require("node:os").tmpdir())'], {
      encoding: 'utf8',
    });
    expect(child.stdout).toBe(tmpdir());
    const py = spawnSync('python3', ['-c', 'import tempfile,sys; sys.stdout.write(tempfile.gettempdir())'], {
      encoding: 'utf8',
    });
    expect(py.stdout).toBe(tmpdir());
  });
});
