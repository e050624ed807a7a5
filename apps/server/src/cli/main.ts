import { pathToFileURL } from 'node:url';
import { resolve } from 'node:path';
import { CliError, USAGE, UsageError } from './errors.ts';
import { holdSignals } from './heldSignals.ts';
import type { CliIO } from './io.ts';
import { disableOnnxRuntimeTelemetry } from './onnxTelemetry.ts';

/** The bundled examples: `--repo` when not given. */
export const DEFAULT_REPO = resolve(
  import.meta.dirname ?? new URL('.', import.meta.url).pathname,
  '../../../../examples/model_repository',
);

type Command = (argv: string[], io: CliIO) => Promise<number>;

// Commands load lazily so `validate` never pays for onnxruntime workers it does not use.
const COMMANDS: Record<string, () => Promise<Command>> = {
  serve: async () => (await import('./commands/serve.ts')).serveCommand,
  validate: async () => (await import('./commands/validate.ts')).validateCommand,
  compile: async () => (await import('./commands/compile.ts')).compileCommand,
  import: async () => (await import('./commands/import.ts')).importCommand,
  run: async () => (await import('./commands/run.ts')).runCommand,
  'prepare-examples': async () => (await import('./commands/prepare.ts')).prepareCommand,
};

/** Exit code for a thrown value: 2 for usage/config problems, 1 otherwise. */
function exitCodeOf(err: unknown): number {
  return err instanceof UsageError ||
    (err instanceof Error && err.name === 'ConfigError') ||
    err?.constructor?.name === 'ConfigError'
    ? 2
    : 1;
}

/** One line, no stack: fs errors say which path and why. */
function describe(err: unknown): string {
  if (err instanceof UsageError || err instanceof CliError) return err.message;
  const e = err as NodeJS.ErrnoException;
  if (e?.code && e.path) return `${e.code}: ${e.path}`;
  return (e?.message ?? String(err)).split('\n')[0] ?? 'error';
}

/**
 * Runs one CLI command and returns its exit code (0 ok, 1 diagnostics/run error, 2 usage).
 * Errors are one line on `io.err`, never a stack trace.
 * @example process.exitCode = await runCli(['validate', '--json'], io)
 */
export async function runCli(argv: string[], io: CliIO): Promise<number> {
  const [name, ...rest] = argv;
  if (name === undefined || name === '--help' || name === '-h' || name === 'help') {
    (name === undefined ? io.err : io.out)(USAGE);
    return name === undefined ? 2 : 0;
  }
  const load = COMMANDS[name];
  if (!load) {
    io.err(`ensemble-studio: unknown command "${name}" (commands: ${Object.keys(COMMANDS).join(', ')})`);
    return 2;
  }
  try {
    return await (
      await load()
    )(rest, io);
  } catch (err) {
    io.err(`ensemble-studio ${name}: ${describe(err)}`);
    return exitCodeOf(err);
  }
}

/**
 * Runs the command in `process.argv` and exits with its code (the launcher, bin/ensemble-studio.mjs, calls it).
 * @example await main()
 */
export async function main(): Promise<void> {
  disableOnnxRuntimeTelemetry();
  const io: CliIO = {
    out: (line) => process.stdout.write(`${line}\n`),
    err: (line) => process.stderr.write(`${line}\n`),
    defaultRepo: DEFAULT_REPO,
  };
  // `serve` handles a signal from its first moment (its modules take seconds to load): see heldSignals.ts.
  if (process.argv[2] === 'serve') holdSignals();
  const code = await runCli(process.argv.slice(2), io);
  // worker threads or timers of the engine must not keep a finished command alive
  process.stdout.write('', () => process.exit(code));
}

if (process.argv[1] && import.meta.url === pathToFileURL(resolve(process.argv[1])).href) void main();
