// Scratch directories for tests that remove themselves: inside a test when it finishes, otherwise when its file
// finishes. The run's global setup (test/support/tempRunDir.ts) then fails the run if anything is still left.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, onTestFinished } from 'vitest';

/** Directories made outside a running test (in a describe body or a beforeAll), removed when their file finishes. */
const pendingForFile = new Set<string>();

/** Removes `dir` and everything in it; a directory that is already gone is fine. */
export function removeTempDir(dir: string): void {
  rmSync(dir, { recursive: true, force: true, maxRetries: 3, retryDelay: 50 });
  pendingForFile.delete(dir);
}

/**
 * A fresh directory `<os.tmpdir()>/<prefix>XXXXXX` that is removed for you: inside a test, when that test finishes
 * (after its afterEach hooks); elsewhere (a describe body, beforeAll), after the file's afterAll hooks, so servers
 * and workers stopped there are gone before their directory is.
 * @example const dir = tempDir('repo-'); writeFileSync(join(dir, 'a.json'), '{}')
 */
export function tempDir(prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  try {
    onTestFinished(() => removeTempDir(dir));
  } catch {
    // Not inside a test: an afterAll registered in a beforeAll would never run, so the file-level hook
    // installed by `removeTempDirsAfterFile` removes it.
    pendingForFile.add(dir);
  }
  return dir;
}

/**
 * Registers the afterAll that removes the directories `tempDir` made outside tests. Called once per test file from
 * the vitest setup file, so that hook is the file's first and (hooks run in reverse) its last to run.
 */
export function removeTempDirsAfterFile(): void {
  afterAll(() => {
    for (const dir of [...pendingForFile]) removeTempDir(dir);
  });
}
