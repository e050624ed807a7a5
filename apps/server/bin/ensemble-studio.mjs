#!/usr/bin/env node
// Launcher for the `ensemble-studio` CLI. Node 20 cannot load TypeScript: src/cli/main.ts runs from its esbuild
// bundle (src/scriptBundle.mjs), in this process; where no bundle can be made (an unwritable install, no esbuild) it
// runs under tsx's loader in a child process, which takes seconds longer to start.
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { TIER_UP_FLAG, tierUpSooner } from '../src/v8Tiering.mjs';

tierUpSooner(); // before the CLI's code is loaded: the server's per-request code optimised within its first requests

const SIGNALS = ['SIGINT', 'SIGTERM'];
const serving = process.argv[2] === 'serve';
let child;
let forwarded;
// A SIGINT/SIGTERM killing the command before it handles one (no CLI yet, or a child still loading its modules:
// `serve` handles them from its first moment, src/cli/heldSignals.ts) came before anything had started: `serve`
// stops as it does once it listens.
const stoppedEarly = (sig) => {
  if (serving) process.stderr.write(`${sig}: shutting down\n`);
  process.exit(serving ? 0 : 1);
};
const onSignal = (sig) => {
  forwarded = sig;
  if (child) child.kill(sig);
  else stoppedEarly(sig);
};
for (const sig of SIGNALS) process.on(sig, onSignal);

const entry = new URL('../src/cli/main.ts', import.meta.url);
const main = await import('../src/scriptBundle.mjs')
  .then(async ({ bundleScript }) => (await import((await bundleScript(entry)).href)).main)
  .catch((err) => {
    process.emitWarning(`cannot bundle the CLI (${err.message}); it starts through tsx's loader, slower`);
    return undefined;
  });

if (main) {
  // main() installs its own handlers before it first waits (heldSignals.ts for `serve`).
  for (const sig of SIGNALS) process.off(sig, onSignal);
  await main();
} else {
  let tsx;
  try {
    tsx = import.meta.resolve('tsx');
  } catch {
    process.stderr.write('ensemble-studio: tsx is not installed; run `pnpm install` at the repository root\n');
    process.exit(2);
  }
  child = spawn(process.execPath, [TIER_UP_FLAG, '--import', tsx, fileURLToPath(entry), ...process.argv.slice(2)], {
    stdio: 'inherit',
  });
  child.on('exit', (code, signal) => {
    if (signal !== null && signal === forwarded) stoppedEarly(signal);
    process.exit(code ?? (signal ? 1 : 0));
  });
}
