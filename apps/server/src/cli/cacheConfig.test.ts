import { describe, expect, it } from 'vitest';
import { cacheFlags } from './cacheConfig.ts';

describe('serve --cache-config / --response-cache-byte-size', () => {
  it("gives Triton's local cache its size", () => {
    expect(cacheFlags(['local,size=1048576'], undefined)).toEqual({ cache: { sizeBytes: 1048576 } });
    expect(cacheFlags([], undefined)).toEqual({});
  });

  it('takes the deprecated byte size with the warning Triton prints', () => {
    const r = cacheFlags([], '4096');
    expect(r.cache).toEqual({ sizeBytes: 4096 });
    expect(r.warning).toContain("'--cache-config=local,size=4096'");
    expect(r.warning).toMatch(/^Warning: '--response-cache-byte-size' has been deprecated!/);
  });

  it("refuses what Triton's parser refuses, in its words", () => {
    expect(() => cacheFlags(['local,size=1'], '1')).toThrow(
      'Incompatible flags --response-cache-byte-size and --cache-config both provided. Please provide one or the other.',
    );
    expect(() => cacheFlags(['local,size=8192', 'redis,key=value'], undefined)).toThrow(
      'found multiple cache configurations, but only a single cache is currently supported',
    );
    expect(() => cacheFlags(['size=1'], undefined)).toThrow(
      'No cache specified. --cache-config option format is <cache name>,<setting>=<value>. Got size=1',
    );
    for (const bad of ['local,size', 'local,=1', 'local,size='])
      expect(() => cacheFlags([bad], undefined)).toThrow(
        `--cache-config option format is '<cache name>,<setting>=<value>'. Got ${bad}`,
      );
  });

  it('refuses another cache, another setting and a size that is not a whole number above 0', () => {
    expect(() => cacheFlags(['redis,host=x'], undefined)).toThrow(
      "the studio has Triton's 'local' cache only, not 'redis'",
    );
    expect(() => cacheFlags(['local,bytes=1'], undefined)).toThrow("one setting, size (bytes), not 'bytes'");
    for (const bad of ['0', '-1', '1.5', '1e6', ' 1', '99999999999999999'])
      expect(() => cacheFlags([`local,size=${bad}`], undefined)).toThrow('expects a size in bytes');
    expect(() => cacheFlags([], 'x')).toThrow('--response-cache-byte-size expects a size in bytes');
  });
});
