#!/usr/bin/env node
// Launcher for the `ensemble-studio` CLI: runs src/cli/main.ts under tsx (Node 20 has no type stripping).
import { spawn } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
let tsx;
try {
  tsx = import.meta.resolve('tsx');
} catch {
  process.stderr.write('ensemble-studio: tsx is not installed; run `pnpm install` at the repository root\n');
  process.exit(2);
}
const entry = join(here, '..', 'src', 'cli', 'main.ts');
const child = spawn(process.execPath, ['--import', tsx, entry, ...process.argv.slice(2)], { stdio: 'inherit' });
for (const sig of ['SIGINT', 'SIGTERM']) process.on(sig, () => child.kill(sig));
child.on('exit', (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
