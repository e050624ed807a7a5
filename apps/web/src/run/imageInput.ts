import type { DataType } from '@ensemble-studio/core';
import type { BrowserTensor } from './runSocket.ts';

/** How an input tensor holds an image, inferred from its dtype and dims (no batch dim). */
export interface ImageLayout {
  layout: 'HWC' | 'CHW';
  datatype: DataType;
  height: number;
  width: number;
}

/** An image layout for dims like [-1,-1,3] (HWC) or [3,H,W] (CHW); null when the input is no image. */
export function imageLayout(datatype: DataType, dims: readonly number[]): ImageLayout | null {
  if (datatype !== 'UINT8' && datatype !== 'FP32') return null;
  const d = dims.length === 4 && (dims[0] === 1 || dims[0] === -1) ? dims.slice(1) : dims;
  if (d.length !== 3) return null;
  if (d[2] === 3) return { layout: 'HWC', datatype, height: d[0] ?? -1, width: d[1] ?? -1 };
  if (d[0] === 3) return { layout: 'CHW', datatype, height: d[1] ?? -1, width: d[2] ?? -1 };
  return null;
}

/** Draws an image file onto a white canvas (resized when the layout fixes a size) and returns its pixels. */
async function pixels(file: Blob, l: ImageLayout): Promise<ImageData> {
  const bmp = await createImageBitmap(file);
  const w = l.width > 0 ? l.width : bmp.width;
  const h = l.height > 0 ? l.height : bmp.height;
  const canvas = new OffscreenCanvas(w, h);
  const ctx = canvas.getContext('2d');
  if (!ctx) throw new Error('this browser cannot decode images (no 2D canvas)');
  // Transparent pixels over white, as the image shows on a page (and as the server's decoder does).
  ctx.fillStyle = '#fff';
  ctx.fillRect(0, 0, w, h);
  ctx.drawImage(bmp, 0, 0, w, h);
  bmp.close();
  return ctx.getImageData(0, 0, w, h);
}

/**
 * Decodes an uploaded image in the browser to the tensor an input expects: UINT8 or FP32 (0..1),
 * HWC or CHW, RGB, resized when the dims fix a size. A leading batch dim is added when `batched`.
 * @example const t = await decodeImage(file, imageLayout('UINT8', [-1, -1, 3])!, false) // shape [h, w, 3]
 */
export async function decodeImage(
  file: Blob,
  l: ImageLayout,
  batched: boolean,
): Promise<{ tensor: BrowserTensor; width: number; height: number }> {
  const img = await pixels(file, l);
  const { width: w, height: h, data } = img;
  const n = w * h;
  const out = l.datatype === 'UINT8' ? new Uint8Array(n * 3) : new Float32Array(n * 3);
  const scale = l.datatype === 'UINT8' ? 1 : 1 / 255;
  for (let i = 0; i < n; i++) {
    for (let c = 0; c < 3; c++) {
      const v = (data[i * 4 + c] ?? 0) * scale;
      out[l.layout === 'HWC' ? i * 3 + c : c * n + i] = v;
    }
  }
  const shape = l.layout === 'HWC' ? [h, w, 3] : [3, h, w];
  return { tensor: { datatype: l.datatype, shape: batched ? [1, ...shape] : shape, bytes: out }, width: w, height: h };
}
