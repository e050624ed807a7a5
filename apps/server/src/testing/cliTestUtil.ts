import { spawn } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The launcher the user runs (`pnpm studio` runs the same entry under tsx). */
export const BIN = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'bin', 'ensemble-studio.mjs');

export interface CliRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

/**
 * Spawns the real CLI and collects its output.
 * @example const r = await runBin(['validate', '--repo', dir]); r.code === 0
 */
export function runBin(args: string[], opts: { cwd?: string; env?: Record<string, string> } = {}): Promise<CliRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, ...args], {
      cwd: opts.cwd,
      env: { ...process.env, ...opts.env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => {
      stdout += d.toString();
    });
    child.stderr.on('data', (d: Buffer) => {
      stderr += d.toString();
    });
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}
