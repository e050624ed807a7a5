// The bench's scratch directory: removed when the bench exits, however it exits (done, failed, Ctrl-C).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * A fresh `<os.tmpdir()>/<prefix>XXXXXX`, removed on process exit and on SIGINT/SIGTERM (which then exit 130/143).
 * @example const dir = benchScratchDir('engine-repo-');
 */
export function benchScratchDir(prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  process.on('exit', () => rmSync(dir, { recursive: true, force: true }));
  for (const [signal, code] of [
    ['SIGINT', 130],
    ['SIGTERM', 143],
  ] as const)
    process.once(signal, () => process.exit(code));
  return dir;
}
