import jpeg from 'jpeg-js';
import { PNG } from 'pngjs';
import type { Tensor } from '@ensemble-studio/core';
import { jpegOrientation, orient } from './orientation.ts';

const PNG_MAGIC = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];

function startsWith(bytes: Uint8Array, magic: number[]): boolean {
  return bytes.length >= magic.length && magic.every((b, i) => bytes[i] === b);
}

/**
 * RGBA pixels composited over white → UINT8 [h, w, 3], as the image shows on a page (and as PaddleOCR's
 * `alpha_to_color` does: v·a + 255·(1 − a), truncated): a transparent PNG's text stays readable.
 */
function rgbaToRgb(rgba: Uint8Array, width: number, height: number): Tensor {
  const out = new Uint8Array(width * height * 3);
  for (let p = 0, q = 0; q < out.length; p += 4, q += 3) {
    const a = rgba[p + 3] ?? 255;
    for (let c = 0; c < 3; c++) {
      const v = rgba[p + c] ?? 0;
      out[q + c] = a === 255 ? v : Math.trunc((v * a + 255 * (255 - a)) / 255);
    }
  }
  return { datatype: 'UINT8', shape: [height, width, 3], data: out };
}

/**
 * Decodes a PNG (any bit depth, gray/palette/alpha) or a JPEG into UINT8 [H, W, 3] RGB: alpha is
 * composited over white, gray is expanded, 16-bit PNG is scaled to 8 bits, and a JPEG is turned as its
 * EXIF orientation says (as browsers and OpenCV show it).
 * @throws Error `decodeImage: …` for empty, unknown or corrupt data.
 * @example decodeImage(readFileSync('photo.jpg')).shape // [480, 640, 3]
 */
export function decodeImage(bytes: Uint8Array): Tensor {
  if (bytes.length === 0) throw new Error('decodeImage: the file is empty');
  if (startsWith(bytes, PNG_MAGIC)) {
    let png: PNG;
    try {
      png = PNG.sync.read(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength));
    } catch (e) {
      throw new Error(`decodeImage: invalid PNG: ${(e as Error).message}`, { cause: e });
    }
    return rgbaToRgb(png.data, png.width, png.height);
  }
  if (startsWith(bytes, [0xff, 0xd8, 0xff])) {
    let img: { width: number; height: number; data: Uint8Array };
    try {
      img = jpeg.decode(bytes, { useTArray: true, formatAsRGBA: true, maxMemoryUsageInMB: 1024 });
    } catch (e) {
      throw new Error(`decodeImage: invalid JPEG: ${(e as Error).message}`, { cause: e });
    }
    return orient(rgbaToRgb(img.data, img.width, img.height), jpegOrientation(bytes));
  }
  const head = Array.from(bytes.subarray(0, 8), (b) => b.toString(16).padStart(2, '0')).join(' ');
  throw new Error(`decodeImage: not a PNG or JPEG (starts with ${head})`);
}
