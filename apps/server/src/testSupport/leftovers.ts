// What a test run may find in its temp directory at the end, and what it must not.
import { readdirSync } from 'node:fs';

/**
 * What tools keep in the temp directory on purpose and reuse across runs: tsx's compile cache (`tsx-<uid>`), the
 * python3 shim of scripts/setup.mjs, node's compile cache.
 */
export const TOOL_CACHES: readonly RegExp[] = [/^tsx-\d+$/, /^ensemble-studio-python$/, /^node-compile-cache$/];

/** The PulseAudio runtime dir a run gives Chromium and espeak-ng (PULSE_RUNTIME_PATH); the run removes it. */
export const AUDIO_RUNTIME_DIR = 'pulse-runtime';

/** Entries of `dir` that are neither a tool's cache nor the run's audio runtime dir, sorted. */
export function leftoversIn(dir: string): string[] {
  return readdirSync(dir).filter((name) => name !== AUDIO_RUNTIME_DIR && !TOOL_CACHES.some((re) => re.test(name))).sort();
}
