// EXIF orientation of JPEG files: a phone stores a photo as the sensor saw it and a tag saying how to
// turn it. Browsers (createImageBitmap) and OpenCV's imread turn it; so must the CLI's decoder, or a
// photo taken upright reaches OCR lying on its side.
import type { Tensor } from '@ensemble-studio/core';

const SOS = 0xda;
const APP1 = 0xe1;
const ORIENTATION_TAG = 0x0112;

/** The TIFF block of an APP1 segment that starts with "Exif\0\0", or undefined. */
function exifTiff(bytes: Uint8Array, at: number, end: number): DataView | undefined {
  const isExif = end - at >= 14 && [0x45, 0x78, 0x69, 0x66, 0, 0].every((b, i) => bytes[at + i] === b);
  return isExif ? new DataView(bytes.buffer, bytes.byteOffset + at + 6, end - at - 6) : undefined;
}

/** The Orientation entry of IFD0 in a TIFF block (1 when absent or malformed). */
function tiffOrientation(tiff: DataView): number {
  if (tiff.byteLength < 8) return 1;
  const order = tiff.getUint16(0);
  if (order !== 0x4949 && order !== 0x4d4d) return 1;
  const le = order === 0x4949;
  const ifd = tiff.getUint32(4, le);
  if (ifd + 2 > tiff.byteLength) return 1;
  const count = tiff.getUint16(ifd, le);
  for (let k = 0; k < count; k++) {
    const entry = ifd + 2 + k * 12;
    if (entry + 12 > tiff.byteLength) return 1;
    if (tiff.getUint16(entry, le) !== ORIENTATION_TAG) continue;
    const value = tiff.getUint16(entry + 8, le);
    return value >= 1 && value <= 8 ? value : 1;
  }
  return 1;
}

/**
 * The EXIF orientation of a JPEG (1–8, TIFF's numbering; 1 = as stored), read from the first APP1
 * "Exif" segment before the scan. 1 when there is none or it cannot be read: a broken tag never stops
 * an image from decoding.
 * @example jpegOrientation(readFileSync('phone.jpg')) // 6: turn 90° clockwise to view
 */
export function jpegOrientation(bytes: Uint8Array): number {
  let at = 2;
  while (at + 4 <= bytes.length && bytes[at] === 0xff) {
    const marker = bytes[at + 1]!;
    if (marker === 0xff) {
      at++;
      continue;
    }
    if (marker === SOS || marker === 0xd9) return 1;
    const length = (bytes[at + 2]! << 8) | bytes[at + 3]!;
    const end = Math.min(at + 2 + length, bytes.length);
    if (marker === APP1) {
      const tiff = exifTiff(bytes, at + 4, end);
      if (tiff) return tiffOrientation(tiff);
    }
    at = end;
  }
  return 1;
}

/**
 * Turns a UINT8 [H, W, C] image as EXIF orientation `o` says, so it reads as it is meant to be seen:
 * 2 mirror, 3 rotate 180°, 4 flip, 5 transpose, 6 rotate 90° clockwise, 7 transverse, 8 rotate 90°
 * counter-clockwise. 1 (or anything else) returns the image itself.
 * @example orient({ datatype: 'UINT8', shape: [1, 2, 1], data: Uint8Array.of(1, 2) }, 6).shape // [2, 1, 1]
 */
export function orient(t: Tensor, o: number): Tensor {
  if (o < 2 || o > 8) return t;
  const [h, w, c] = t.shape as [number, number, number];
  const [oh, ow] = o >= 5 ? [w, h] : [h, w];
  // Stored pixel index = origin + x·stepX + y·stepY for the shown pixel (x, y).
  const { origin, stepX, stepY } = walk(o, w, h);
  const src = t.data as Uint8Array;
  const out = new Uint8Array(src.length);
  for (let y = 0, to = 0; y < oh; y++) {
    for (let x = 0, from = origin + y * stepY; x < ow; x++, from += stepX, to += c) {
      for (let k = 0; k < c; k++) out[to + k] = src[from * c + k]!;
    }
  }
  return { datatype: 'UINT8', shape: [oh, ow, c], data: out };
}

/** Where the shown image's pixels lie in the stored w × h one: the first, and the steps right and down. */
function walk(o: number, w: number, h: number): { origin: number; stepX: number; stepY: number } {
  switch (o) {
    case 2:
      return { origin: w - 1, stepX: -1, stepY: w };
    case 3:
      return { origin: h * w - 1, stepX: -1, stepY: -w };
    case 4:
      return { origin: (h - 1) * w, stepX: 1, stepY: -w };
    case 5:
      return { origin: 0, stepX: w, stepY: 1 };
    case 6:
      return { origin: (h - 1) * w, stepX: -w, stepY: 1 };
    case 7:
      return { origin: h * w - 1, stepX: -w, stepY: -1 };
    default:
      return { origin: w - 1, stepX: w, stepY: -1 };
  }
}
