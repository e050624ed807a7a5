import { writeFileSync } from 'node:fs';
import { encodeWav } from '../../../apps/server/src/testing/encodeWav.ts';

/**
 * Writes a 16-bit PCM mono WAV (44.1 kHz by default; the browser resamples it to 16 kHz):
 * silence for the first second, a voiced buzz until a second before the end, then silence.
 */
export function writeWav(path: string, seconds = 4, rate = 44_100): string {
  const n = seconds * rate;
  const pcm = new Int16Array(n);
  for (let i = 0; i < n; i++) {
    const t = i / rate;
    let v = 0;
    if (t > 1 && t < seconds - 1) for (let h = 1; h <= 12; h++) v += Math.sin(2 * Math.PI * 130 * h * t) / h;
    pcm[i] = Math.max(-32768, Math.min(32767, Math.round(v * 6000)));
  }
  writeFileSync(path, encodeWav(pcm, rate));
  return path;
}

/** A PNG drawn by Chromium's canvas into `path`: dark text on white, or a blank white page when `text` is null. */
export async function writePng(
  page: import('playwright-core').Page,
  path: string,
  text: string | null,
): Promise<string> {
  const b64 = await page.evaluate(async (t) => {
    const c = new OffscreenCanvas(480, 160);
    const ctx = c.getContext('2d')!;
    ctx.fillStyle = '#fff';
    ctx.fillRect(0, 0, 480, 160);
    if (t) {
      ctx.fillStyle = '#000';
      ctx.font = 'bold 44px sans-serif';
      ctx.fillText(t, 30, 95);
    }
    const bytes = new Uint8Array(await (await c.convertToBlob({ type: 'image/png' })).arrayBuffer());
    let bin = '';
    for (const b of bytes) bin += String.fromCharCode(b);
    return btoa(bin);
  }, text);
  writeFileSync(path, Buffer.from(b64, 'base64'));
  return path;
}
