// What a test run may find in its temp directory at the end, and what it must not.
import { readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { pidAlive } from '../pidAlive.ts';

/**
 * What tools keep in the temp directory on purpose and reuse across runs: tsx's compile cache (`tsx-<uid>`), the
 * python3 shim of scripts/setup.mjs, node's compile cache.
 */
const TOOL_CACHES: readonly RegExp[] = [/^tsx-\d+$/, /^ensemble-studio-python$/, /^node-compile-cache$/];

/** The PulseAudio runtime dir a run gives Chromium and espeak-ng (PULSE_RUNTIME_PATH); the run removes it. */
export const AUDIO_RUNTIME_DIR = 'pulse-runtime';

/** Entries of `dir` that are neither a tool's cache nor the run's audio runtime dir, sorted. */
export function leftoversIn(dir: string): string[] {
  return readdirSync(dir)
    .filter((name) => name !== AUDIO_RUNTIME_DIR && !TOOL_CACHES.some((re) => re.test(name)))
    .sort();
}

/** The prefix of a run's temp directory: `<prefix><pid of the vitest process>-XXXXXX`. */
export const RUN_DIR_PREFIX = 'studio-test-run-';

/**
 * Removes the run directories in `parent` whose vitest process is gone (killed or crashed before its teardown);
 * those of live processes (runs going on beside this one) stay. Returns the names removed.
 */
export function removeDirsOfDeadRuns(parent: string): string[] {
  const removed: string[] = [];
  for (const name of readdirSync(parent)) {
    const pid = Number(new RegExp(`^${RUN_DIR_PREFIX}(\\d+)-`).exec(name)?.[1]);
    if (!pid || pidAlive(pid)) continue;
    rmSync(join(parent, name), { recursive: true, force: true });
    removed.push(name);
  }
  return removed;
}
