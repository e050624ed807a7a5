#!/usr/bin/env node
// Launcher for the `ensemble-studio` CLI: runs src/cli/main.ts under tsx (Node 20 has no type stripping).
import { spawn } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const serving = process.argv[2] === 'serve';
let child;
let forwarded;
// A SIGINT/SIGTERM killing the command before it handles one (no child yet, or a child still loading its modules:
// `serve` handles them from its first moment, src/cli/heldSignals.ts) came before anything had started: `serve`
// stops as it does once it listens.
const stoppedEarly = (sig) => {
  if (serving) process.stderr.write(`${sig}: shutting down\n`);
  process.exit(serving ? 0 : 1);
};
for (const sig of ['SIGINT', 'SIGTERM'])
  process.on(sig, () => {
    forwarded = sig;
    if (child) child.kill(sig);
    else stoppedEarly(sig);
  });

const here = dirname(fileURLToPath(import.meta.url));
let tsx;
try {
  tsx = import.meta.resolve('tsx');
} catch {
  process.stderr.write('ensemble-studio: tsx is not installed; run `pnpm install` at the repository root\n');
  process.exit(2);
}
const entry = join(here, '..', 'src', 'cli', 'main.ts');
child = spawn(process.execPath, ['--import', tsx, entry, ...process.argv.slice(2)], { stdio: 'inherit' });
child.on('exit', (code, signal) => {
  if (signal !== null && signal === forwarded) stoppedEarly(signal);
  process.exit(code ?? (signal ? 1 : 0));
});
