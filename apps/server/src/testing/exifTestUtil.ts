/**
 * A JPEG with an APP1 "Exif" segment holding only IFD0's Orientation tag inserted after SOI (as a
 * camera writes it), little- or big-endian. For tests.
 * @example withExifOrientation(jpegBytes, 6, true)
 */
export function withExifOrientation(jpegBytes: Uint8Array, orientation: number, littleEndian: boolean): Uint8Array {
  const tiff = new DataView(new ArrayBuffer(8 + 2 + 12 + 4));
  tiff.setUint16(0, littleEndian ? 0x4949 : 0x4d4d);
  tiff.setUint16(2, 42, littleEndian);
  tiff.setUint32(4, 8, littleEndian);
  tiff.setUint16(8, 1, littleEndian);
  tiff.setUint16(10, 0x0112, littleEndian);
  tiff.setUint16(12, 3, littleEndian);
  tiff.setUint32(14, 1, littleEndian);
  tiff.setUint16(18, orientation, littleEndian);
  const body = [0x45, 0x78, 0x69, 0x66, 0, 0, ...new Uint8Array(tiff.buffer)];
  const segment = [0xff, 0xe1, (body.length + 2) >> 8, (body.length + 2) & 0xff, ...body];
  return Uint8Array.from([...jpegBytes.subarray(0, 2), ...segment, ...jpegBytes.subarray(2)]);
}
