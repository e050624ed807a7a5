import { describe, expect, it } from 'vitest';
import jpeg from 'jpeg-js';
import { tensorFromJson } from '@ensemble-studio/core';
import { decodeImage } from './image.ts';
import { jpegOrientation, orient } from './orientation.ts';
import { withExifOrientation } from '../testing/exifTestUtil.ts';

/** A 2×3 one-channel image 1 2 3 / 4 5 6, turned by `o`, as rows. */
function turned(o: number): number[][] {
  const t = orient(tensorFromJson('UINT8', [2, 3, 1], [1, 2, 3, 4, 5, 6]), o);
  const [h, w] = t.shape as [number, number];
  const d = Array.from(t.data as Uint8Array);
  return Array.from({ length: h }, (_, y) => d.slice(y * w, (y + 1) * w));
}

describe('orient', () => {
  it('turns an image each of the eight EXIF ways', () => {
    expect(turned(1)).toEqual([
      [1, 2, 3],
      [4, 5, 6],
    ]);
    expect(turned(2)).toEqual([
      [3, 2, 1],
      [6, 5, 4],
    ]);
    expect(turned(3)).toEqual([
      [6, 5, 4],
      [3, 2, 1],
    ]);
    expect(turned(4)).toEqual([
      [4, 5, 6],
      [1, 2, 3],
    ]);
    expect(turned(5)).toEqual([
      [1, 4],
      [2, 5],
      [3, 6],
    ]);
    expect(turned(6)).toEqual([
      [4, 1],
      [5, 2],
      [6, 3],
    ]);
    expect(turned(7)).toEqual([
      [6, 3],
      [5, 2],
      [4, 1],
    ]);
    expect(turned(8)).toEqual([
      [3, 6],
      [2, 5],
      [1, 4],
    ]);
  });

  it('moves whole pixels (every channel together)', () => {
    const t = orient(tensorFromJson('UINT8', [1, 2, 3], [1, 2, 3, 4, 5, 6]), 6);
    expect(t.shape).toEqual([2, 1, 3]);
    expect(Array.from(t.data as Uint8Array)).toEqual([1, 2, 3, 4, 5, 6]);
  });
});

describe('jpegOrientation', () => {
  const plain = new Uint8Array(jpeg.encode({ width: 4, height: 2, data: new Uint8Array(32).fill(200) }, 90).data);

  it('reads the tag in either byte order, and 1 when there is no EXIF', () => {
    expect(jpegOrientation(plain)).toBe(1);
    expect(jpegOrientation(withExifOrientation(plain, 6, true))).toBe(6);
    expect(jpegOrientation(withExifOrientation(plain, 8, false))).toBe(8);
  });

  it('treats a truncated or nonsensical tag as 1 instead of failing', () => {
    const bad = withExifOrientation(plain, 6, true);
    expect(jpegOrientation(bad.subarray(0, 30))).toBe(1);
    expect(jpegOrientation(withExifOrientation(plain, 42, true))).toBe(1);
  });

  it('makes decodeImage turn the photo as a browser shows it', () => {
    // Left half black, right half white, stored 8×4; orientation 6 shows it 4×8, black on top.
    const w = 8;
    const h = 4;
    const rgba = new Uint8Array(w * h * 4).map((_, i) => (i % 4 === 3 ? 255 : Math.floor(i / 4) % w < w / 2 ? 0 : 255));
    const bytes = withExifOrientation(
      new Uint8Array(jpeg.encode({ width: w, height: h, data: rgba }, 95).data),
      6,
      false,
    );
    const t = decodeImage(bytes);
    expect(t.shape).toEqual([8, 4, 3]);
    const px = t.data as Uint8Array;
    expect(px[0]).toBeLessThan(40);
    expect(px[(7 * 4 + 3) * 3]).toBeGreaterThan(215);
  });
});
