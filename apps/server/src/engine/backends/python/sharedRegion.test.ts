import { readdirSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { tempDir } from '../../../testing/tempDir.ts';
import { RegionFile, regionMaxBytes } from './sharedRegion.ts';

// Node's side of a region file on a real directory: page-aligned first-fit ranges, reads of what was written,
// and undefined (the pipe) when the region is full.

const bytes = (n: number, v: number) => new Uint8Array(n).fill(v);

describe('RegionFile', () => {
  it('writes at page-aligned first-fit offsets, reads back, and reuses freed ranges', () => {
    const dir = tempDir('region-file-');
    const r = RegionFile.create(dir, 'm_0-in', 1 << 20)!;
    expect(readdirSync(dir)).toHaveLength(1);
    expect(r.put(bytes(5000, 1))).toBe(0);
    expect(r.put(bytes(10, 2))).toBe(8192);
    expect([...r.read(8192, 10)]).toEqual([...bytes(10, 2)]);
    expect(r.read(0, 5000).every((b) => b === 1)).toBe(true);
    r.free(0);
    expect(r.put(bytes(4096, 3))).toBe(0);
    expect(() => r.read(1 << 19, 16)).toThrow(/past the region's end/);
    r.close();
    expect(readdirSync(dir)).toEqual([]);
  });

  it('leaves to the pipe what does not fit', () => {
    const r = RegionFile.create(tempDir('region-file-'), 'm_0-in', 8192)!;
    expect(r.put(bytes(8192, 1))).toBe(0);
    expect(r.put(bytes(1, 1))).toBeUndefined();
    r.free(0);
    expect(r.put(bytes(1, 1))).toBe(0);
    r.close();
  });

  it('is not made where the directory cannot hold it, and is bounded by the body limit', () => {
    expect(RegionFile.create(`${tempDir('region-file-')}/missing`, 'm_0-in', 8192)).toBeUndefined();
    expect(regionMaxBytes(1 << 20)).toBe(4 << 20);
    expect(regionMaxBytes(undefined)).toBe(256 << 20);
  });
});
