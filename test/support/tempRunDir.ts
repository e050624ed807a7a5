// vitest globalSetup: every run gets its own temporary directory (TMPDIR, inherited by the test workers, the servers
// and python3 processes they start), and the run fails when a test left anything in it.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  AUDIO_RUNTIME_DIR,
  leftoversIn,
  removeDirsOfDeadRuns,
  RUN_DIR_PREFIX,
} from '../../apps/server/src/testing/leftovers.ts';

function restore(name: string, value: string | undefined): void {
  if (value === undefined) delete process.env[name];
  else process.env[name] = value;
}

/**
 * Points TMPDIR (so `os.tmpdir()` here, in workers and in child processes) at a fresh `<tmpdir>/studio-test-run-<pid>-X`;
 * the returned teardown restores the environment, removes the directory, and throws naming what the tests left in it.
 */
export default function setup(): () => void {
  const outer = process.env.TMPDIR;
  const outerTelemetry = process.env.ORT_DISABLE_TELEMETRY;
  const outerPulse = process.env.PULSE_RUNTIME_PATH;
  const parent = tmpdir();
  removeDirsOfDeadRuns(parent);
  const runDir = mkdtempSync(join(parent, `${RUN_DIR_PREFIX}${process.pid}-`));
  process.env.TMPDIR = runDir;
  // Tests that create onnxruntime sessions in their own process are not the studio, whose entry points turn the
  // runtime's telemetry off (it leaves mat-debug-<pid>.log and .ses in the temp directory); do the same for them.
  process.env.ORT_DISABLE_TELEMETRY ??= '1';
  // Without a session's XDG_RUNTIME_DIR, PulseAudio (loaded by Chromium and espeak-ng) makes a pulse-* dir in TMPDIR
  // that nothing removes; give it one the run removes.
  if (!process.env.XDG_RUNTIME_DIR) process.env.PULSE_RUNTIME_PATH ??= join(runDir, AUDIO_RUNTIME_DIR);
  return () => {
    restore('TMPDIR', outer);
    restore('ORT_DISABLE_TELEMETRY', outerTelemetry);
    restore('PULSE_RUNTIME_PATH', outerPulse);
    const left = leftoversIn(runDir);
    rmSync(runDir, { recursive: true, force: true, maxRetries: 3, retryDelay: 100 });
    if (left.length > 0) {
      // vitest only logs a teardown error; the exit code is what fails CI.
      process.exitCode = 1;
      throw new Error(
        `tests left ${left.length} entr${left.length === 1 ? 'y' : 'ies'} in the temp directory ${runDir} ` +
          `(removed now; use tempDir() from test/support/tempDir.ts or apps/server/src/testing/tempDir.ts): ${left.join(', ')}`,
      );
    }
  };
}
