import { TENSORS, TIMESTAMPS, type TraceValues } from './traceSetting.ts';

/** Triton's trace defaults: off, one request in 1,000, no count limit, one file written at shutdown, none named. */
export const TRACE_DEFAULTS: TraceValues = { level: 0, rate: 1000, count: -1, logFrequency: 0, file: '' };

/**
 * The server's trace settings from its `--trace-config` flags, as Triton's command line reads them: `<setting>=<value>`
 * for `rate`, `level` (given more than once, the levels add up; `OFF` anywhere turns tracing off), `count` and `mode`,
 * and `triton,<setting>=<value>` for `file` and `log-frequency`. Triton's `opentelemetry` mode is refused: the studio
 * writes Triton's trace files only.
 * @throws Error with Triton's message for a flag it would refuse.
 * @example traceValuesOf(['triton,file=/tmp/t.json', 'level=TIMESTAMPS', 'rate=1']).rate // 1
 */
export function traceValuesOf(flags: readonly string[]): TraceValues {
  const v = { ...TRACE_DEFAULTS };
  let off = false;
  for (const arg of flags) {
    const { mode, setting, value } = split(arg);
    const bad = (why: string) => new Error(`Bad option: "--trace-config ${mode ? `${mode},` : ''}${setting}".\n${why}`);
    if (mode === 'opentelemetry')
      throw new Error('--trace-config: the studio writes Triton trace files only (mode triton)');
    if (mode === undefined && setting === 'rate') v.rate = integer(value, bad) >>> 0;
    else if (mode === undefined && setting === 'count') v.count = integer(value, bad);
    else if (mode === undefined && setting === 'level') {
      const level = levelOption(value, bad);
      if (level === 0) off = true;
      v.level |= level;
    } else if (mode === undefined && setting === 'mode') {
      if (modeOption(value) !== 'triton')
        throw new Error('--trace-config: the studio writes Triton trace files only (mode triton)');
    } else if (mode === 'triton' && setting === 'file') v.file = value;
    else if (mode === 'triton' && setting === 'log-frequency') v.logFrequency = integer(value, bad) >>> 0;
    // Other settings Triton takes and passes over (its OpenTelemetry ones).
  }
  if (off) v.level = 0;
  return v;
}

/** `[<mode>,]<setting>=<value>` in Triton's words when it does not parse. */
function split(arg: string): { mode: string | undefined; setting: string; value: string } {
  const comma = arg.indexOf(',');
  if (comma === 0)
    throw new Error(
      `No trace mode specified. --trace-config option format is <trace mode>,<setting>=<value> or <setting>=<value>. Got ${arg}`,
    );
  const eq = arg.indexOf('=', comma + 1);
  const setting = arg.slice(comma + 1, eq);
  const value = arg.slice(eq + 1);
  if (eq < 0 || setting === '' || value === '')
    throw new Error(`--trace-config option format is '<trace mode>,<setting>=<value>'. Got ${arg}`);
  return { mode: comma > 0 ? modeOption(arg.slice(0, comma)) : undefined, setting, value };
}

function modeOption(text: string): string {
  const m = text.toLowerCase();
  if (m === 'triton' || m === 'opentelemetry') return m;
  throw new Error(`invalid value for trace mode option: ${m}. Available options are "triton" and "opentelemetry"`);
}

function levelOption(text: string, bad: (why: string) => Error): number {
  const l = text.toLowerCase();
  if (l === 'false' || l === 'off') return 0;
  if (['true', 'on', 'min', 'max', 'timestamps'].includes(l)) return TIMESTAMPS;
  if (l === 'tensors') return TENSORS;
  throw bad(`invalid value for trace level option: ${l}`);
}

/** An int as Triton's `ParseOption<int>` reads it (`std::stoi`: leading digits, the rest ignored). */
function integer(text: string, bad: (why: string) => Error): number {
  const m = /^[ \t\n\v\f\r]*([+-]?\d+)/.exec(text);
  if (!m) throw bad(`Invalid option value. Got ${text}`);
  const n = Number(m[1]);
  if (n < -(2 ** 31) || n > 2 ** 31 - 1) throw bad(`Provided option value is out of bound. Got ${text}`);
  return n;
}
