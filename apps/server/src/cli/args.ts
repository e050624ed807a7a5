import { statSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { isAbsolute, resolve } from 'node:path';
import { UsageError } from './errors.ts';
import { traceValuesOf } from '../trace/traceConfig.ts';
import type { TraceValues } from '../trace/traceSetting.ts';

export type FlagSpec = Record<string, { type: 'string' | 'boolean'; multiple?: boolean }>;

export interface ParsedArgs {
  positionals: string[];
  values: Record<string, string | boolean | string[] | undefined>;
}

/**
 * Strict flag parsing: unknown flags, missing values and extra positionals are UsageErrors.
 * @example parseCommandArgs(['ocr', '--repo', 'r'], { repo: { type: 'string' } }, 1)
 */
export function parseCommandArgs(argv: string[], flags: FlagSpec, maxPositionals: number): ParsedArgs {
  let parsed;
  try {
    parsed = parseArgs({ args: argv, options: flags, allowPositionals: true, strict: true });
  } catch (err) {
    const message = (err as Error).message;
    // A value that starts with a dash (`--grpc-port -1`) reads as another flag; say how to give it.
    const dashed = /^Option '(--[\w-]+)[^']*' argument is ambiguous/.exec(message);
    if (dashed)
      throw new UsageError(`${dashed[1]} needs a value; one starting with "-" is given as ${dashed[1]}=VALUE`);
    throw new UsageError((message.split('\n')[0] ?? 'bad arguments').split('. To specify')[0]!);
  }
  if (parsed.positionals.length > maxPositionals)
    throw new UsageError(`unexpected argument "${parsed.positionals[maxPositionals]}"`);
  return { positionals: parsed.positionals, values: parsed.values as ParsedArgs['values'] };
}

/** Paths on the command line are relative to where the user ran `pnpm` (INIT_CWD), not the package. */
export function userPath(p: string): string {
  return isAbsolute(p) ? p : resolve(process.env.INIT_CWD ?? process.cwd(), p);
}

/**
 * A directory flag's value as an absolute path; a UsageError when it is not an existing directory.
 * @example directoryValue('examples/model_repository', 'repo')
 */
export function directoryValue(text: string, flag: string): string {
  const path = userPath(text);
  const stats = statSync(path, { throwIfNoEntry: false });
  if (!stats) throw new UsageError(`--${flag} ${path}: no such directory`);
  if (!stats.isDirectory()) throw new UsageError(`--${flag} ${path}: not a directory`);
  return path;
}

/** A string flag's value, or the fallback. */
export function str(values: ParsedArgs['values'], name: string, fallback?: string): string | undefined {
  const v = values[name];
  return typeof v === 'string' ? v : fallback;
}

/** A required string flag. */
export function required(values: ParsedArgs['values'], name: string): string {
  const v = str(values, name);
  if (v === undefined || v === '') throw new UsageError(`missing --${name}`);
  return v;
}

/**
 * A `--port`-style value: 0–65535 (0 picks a free port), or `null` for `off` when `allowOff`.
 * @example portValue('8001', 'grpc-port', true) // 8001
 */
export function portValue(text: string, flag: string, allowOff = false): number | null {
  if (allowOff && text === 'off') return null;
  // Decimal digits only: Number() would also take "0x50" (port 80), "1e3" or " 80 ".
  const port = /^[0-9]{1,5}$/.test(text) ? Number(text) : NaN;
  if (!(port <= 65535)) throw new UsageError(`--${flag} expects 0–65535${allowOff ? ' or off' : ''}, got "${text}"`);
  return port;
}

/**
 * A count flag's value: a decimal integer 0–4294967295 (a uint32, as Triton's `--log-verbose`).
 * @example countValue('1', 'log-verbose') // 1
 */
export function countValue(text: string, flag: string): number {
  const n = /^[0-9]{1,10}$/.test(text) ? Number(text) : NaN;
  if (!(n <= 2 ** 32 - 1)) throw new UsageError(`--${flag} expects a whole number 0–4294967295, got "${text}"`);
  return n;
}

/**
 * A flag whose value is one of `choices`; a UsageError naming them otherwise.
 * @example choiceValue('slice', 'event-loop', ['realtime', 'slice', 'off']) // 'slice'
 */
export function choiceValue<T extends string>(text: string, flag: string, choices: readonly T[]): T {
  if ((choices as readonly string[]).includes(text)) return text as T;
  const list = choices.length > 1 ? `${choices.slice(0, -1).join(', ')} or ${choices.at(-1)}` : choices.join('');
  throw new UsageError(`--${flag} expects ${list}, got "${text}"`);
}

/**
 * The `--trace-config` flags (Triton's: `[triton,]<setting>=<value>`) as the server's trace settings.
 * @example traceConfigValue(['triton,file=trace.json', 'level=TIMESTAMPS', 'rate=1']).level // 1 (TIMESTAMPS)
 */
export function traceConfigValue(flags: readonly string[]): TraceValues {
  try {
    return traceValuesOf(flags);
  } catch (err) {
    throw new UsageError((err as Error).message);
  }
}
