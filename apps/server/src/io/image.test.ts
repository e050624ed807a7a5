import jpeg from 'jpeg-js';
import { PNG } from 'pngjs';
import { describe, expect, it } from 'vitest';
import { tensorFromJson } from '@ensemble-studio/core';
import { encodePng } from '../testing/encodePng.ts';
import { decodeImage } from './image.ts';

/** A PNG written by pngjs with the given colour type from RGBA pixels. */
function png(w: number, h: number, rgba: number[], colorType: 0 | 2 | 4 | 6): Uint8Array {
  const p = new PNG({ width: w, height: h });
  p.data.set(rgba);
  return new Uint8Array(PNG.sync.write(p, { colorType, inputHasAlpha: true }));
}

describe('decodeImage / encodePng', () => {
  it('round-trips an RGB tensor through PNG', () => {
    const t = tensorFromJson(
      'UINT8',
      [2, 3, 3],
      Array.from({ length: 18 }, (_, i) => i * 13),
    );
    const back = decodeImage(encodePng(t));
    expect(back.shape).toEqual([2, 3, 3]);
    expect(Array.from(back.data as Uint8Array)).toEqual(Array.from(t.data as Uint8Array));
  });

  it('composites alpha over white and expands gray to three channels', () => {
    const rgba = [10, 20, 30, 0, 40, 50, 60, 128, 70, 80, 90, 255];
    // 40·128/255 + 255·127/255 = 147.08…, 50 → 152.1…, 60 → 157.1…
    expect(Array.from(decodeImage(png(3, 1, rgba, 6)).data as Uint8Array)).toEqual([
      255, 255, 255, 147, 152, 157, 70, 80, 90,
    ]);
    const gray = png(2, 1, [7, 7, 7, 255, 200, 200, 200, 255], 0);
    expect(Array.from(decodeImage(gray).data as Uint8Array)).toEqual([7, 7, 7, 200, 200, 200]);
  });

  it('decodes a JPEG to UINT8 [H,W,3]', () => {
    const w = 16;
    const h = 8;
    const data = new Uint8Array(w * h * 4).map((_, i) => (i % 4 === 0 || i % 4 === 3 ? 255 : 0));
    const bytes = new Uint8Array(jpeg.encode({ width: w, height: h, data }, 95).data);
    const t = decodeImage(bytes);
    expect(t.shape).toEqual([8, 16, 3]);
    const px = t.data as Uint8Array;
    expect(px[0]).toBeGreaterThan(240);
    expect(px[1]).toBeLessThan(15);
  });

  it('says what is wrong with empty, unknown or corrupt data', () => {
    expect(() => decodeImage(new Uint8Array())).toThrow('decodeImage: the file is empty');
    expect(() => decodeImage(new TextEncoder().encode('GIF89a..'))).toThrow(
      /decodeImage: not a PNG or JPEG \(starts with 47 49 46 38/,
    );
    const good = encodePng(tensorFromJson('UINT8', [4, 4, 3], new Array(48).fill(1)));
    expect(() => decodeImage(good.subarray(0, 40))).toThrow(/decodeImage: invalid PNG/);
    expect(() => decodeImage(Uint8Array.of(0xff, 0xd8, 0xff, 0xe0, 0, 0))).toThrow(/decodeImage: invalid JPEG/);
  });

  it('refuses to encode anything but UINT8 [H,W,3]', () => {
    expect(() => encodePng(tensorFromJson('FP32', [1, 1, 3], [0, 0, 0]))).toThrow(/encodePng: need UINT8 \[H,W,3\]/);
  });
});
