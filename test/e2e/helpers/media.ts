import { writeFileSync } from 'node:fs';

/**
 * Writes a 16-bit PCM mono WAV (44.1 kHz by default; the browser resamples it to 16 kHz):
 * silence for the first second, a voiced buzz until a second before the end, then silence.
 */
export function writeWav(path: string, seconds = 4, rate = 44_100): string {
  const n = seconds * rate;
  const buf = Buffer.alloc(44 + n * 2);
  buf.write('RIFF', 0); buf.writeUInt32LE(36 + n * 2, 4); buf.write('WAVE', 8); buf.write('fmt ', 12);
  buf.writeUInt32LE(16, 16); buf.writeUInt16LE(1, 20); buf.writeUInt16LE(1, 22); buf.writeUInt32LE(rate, 24);
  buf.writeUInt32LE(rate * 2, 28); buf.writeUInt16LE(2, 32); buf.writeUInt16LE(16, 34); buf.write('data', 36); buf.writeUInt32LE(n * 2, 40);
  for (let i = 0; i < n; i++) {
    const t = i / rate;
    let v = 0;
    if (t > 1 && t < seconds - 1) for (let h = 1; h <= 12; h++) v += Math.sin(2 * Math.PI * 130 * h * t) / h;
    buf.writeInt16LE(Math.max(-32768, Math.min(32767, Math.round(v * 6000))), 44 + i * 2);
  }
  writeFileSync(path, buf);
  return path;
}
