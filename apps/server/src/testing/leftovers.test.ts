import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { AUDIO_RUNTIME_DIR, leftoversIn, removeDirsOfDeadRuns, RUN_DIR_PREFIX } from './leftovers.ts';
import { tempDir } from './tempDir.ts';

describe('leftoversIn', () => {
  it("names everything but tools' caches and the run's audio runtime dir", () => {
    const dir = tempDir('leftovers-');
    for (const name of [
      'tsx-0',
      'tsx-1000',
      'ensemble-studio-python',
      'node-compile-cache',
      AUDIO_RUNTIME_DIR,
      'studio-repo-abc123',
      'tsx-cache-copy',
    ])
      mkdirSync(join(dir, name));
    for (const name of ['mat-debug-42.log', '.ses']) writeFileSync(join(dir, name), '');
    expect(leftoversIn(dir)).toEqual(['.ses', 'mat-debug-42.log', 'studio-repo-abc123', 'tsx-cache-copy']);
  });
});

describe('removeDirsOfDeadRuns', () => {
  it('removes the directories of runs whose vitest process is gone and keeps those of live ones', () => {
    const parent = tempDir('runs-');
    const gone = spawnSync(process.execPath, ['-e', '']).pid!;
    const dead = `${RUN_DIR_PREFIX}${gone}-aaaaaa`;
    const live = `${RUN_DIR_PREFIX}${process.pid}-bbbbbb`;
    for (const name of [dead, live, 'other-dir']) mkdirSync(join(parent, name));
    writeFileSync(join(parent, dead, 'left.txt'), 'x');
    expect(removeDirsOfDeadRuns(parent)).toEqual([dead]);
    expect(readdirSync(parent).sort()).toEqual(['other-dir', live].sort());
    expect(existsSync(join(parent, dead))).toBe(false);
  });
});
