import { UsageError } from './errors.ts';

/** The response cache `serve` was asked for (EngineOptions.responseCache), and a warning to print, if any. */
export interface CacheFlags {
  cache?: { sizeBytes: number };
  warning?: string;
}

/**
 * Triton's response-cache flags: `--cache-config <cache name>,<setting>=<value>` (more than once for more settings)
 * or the deprecated `--response-cache-byte-size N`, one or the other, in Triton's words where it has them. The
 * studio has Triton's `local` cache, whose one setting is `size` (bytes).
 * @example cacheFlags(['local,size=1048576'], undefined).cache // { sizeBytes: 1048576 }
 * @throws UsageError for a malformed setting, another cache, another setting, a size that is not a whole number above 0
 */
export function cacheFlags(configs: readonly string[], byteSize: string | undefined): CacheFlags {
  if (byteSize !== undefined && configs.length > 0)
    throw new UsageError(
      'Incompatible flags --response-cache-byte-size and --cache-config both provided. Please provide one or the other.',
    );
  if (byteSize !== undefined) {
    const sizeBytes = sizeValue(byteSize, '--response-cache-byte-size');
    return {
      cache: { sizeBytes },
      warning:
        "Warning: '--response-cache-byte-size' has been deprecated! This will default to the 'local' cache " +
        "implementation with the provided byte size for its config. Please use '--cache-config' instead. The " +
        `equivalent --cache-config CLI args would be: '--cache-config=local,size=${sizeBytes}'`,
    };
  }
  if (configs.length === 0) return {};
  let sizeBytes = 0;
  const names = new Set<string>();
  for (const arg of configs) {
    const comma = arg.indexOf(',');
    if (comma <= 0)
      throw new UsageError(
        `No cache specified. --cache-config option format is <cache name>,<setting>=<value>. Got ${arg}`,
      );
    const equals = arg.indexOf('=', comma + 1);
    const [name, setting, value] = [arg.slice(0, comma), arg.slice(comma + 1, equals), arg.slice(equals + 1)];
    if (equals < 0 || setting === '' || value === '')
      throw new UsageError(`--cache-config option format is '<cache name>,<setting>=<value>'. Got ${arg}`);
    names.add(name);
    if (names.size > 1)
      throw new UsageError('found multiple cache configurations, but only a single cache is currently supported');
    if (name !== 'local')
      throw new UsageError(`--cache-config: the studio has Triton's 'local' cache only, not '${name}' (got ${arg})`);
    if (setting !== 'size')
      throw new UsageError(`--cache-config: the 'local' cache has one setting, size (bytes), not '${setting}'`);
    sizeBytes = sizeValue(value, '--cache-config local,size');
  }
  return { cache: { sizeBytes } };
}

/** A cache size in bytes: a whole number above 0 (a safe integer). */
function sizeValue(text: string, flag: string): number {
  const n = /^[0-9]{1,16}$/.test(text) ? Number(text) : NaN;
  if (!(n > 0 && Number.isSafeInteger(n)))
    throw new UsageError(`${flag} expects a size in bytes, a whole number above 0, got "${text}"`);
  return n;
}
