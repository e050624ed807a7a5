/** A bundled sample image: dark text on white, drawn in the browser (for the OCR example). */
export async function sampleTextImage(text = 'Ensemble Studio 2025'): Promise<Blob> {
  const canvas = new OffscreenCanvas(640, 200);
  const ctx = canvas.getContext('2d')!;
  ctx.fillStyle = '#ffffff';
  ctx.fillRect(0, 0, 640, 200);
  ctx.fillStyle = '#111111';
  ctx.font = 'bold 48px sans-serif';
  ctx.fillText(text, 40, 90);
  ctx.font = '32px sans-serif';
  ctx.fillText('Triton ensembles, visually', 40, 160);
  return canvas.convertToBlob({ type: 'image/png' });
}

/** A bundled sample sound at 16 kHz: silence, a voiced buzz with formant-like harmonics, silence. */
export function sampleAudio(rate = 16_000): Float32Array {
  const out = new Float32Array(rate * 3);
  for (let i = 0; i < out.length; i++) {
    const t = i / rate;
    if (t < 0.8 || t > 2.2) continue;
    const f0 = 120 + 30 * Math.sin(2 * Math.PI * 3 * t);
    let v = 0;
    for (let h = 1; h <= 20; h++) v += (Math.sin(2 * Math.PI * f0 * h * t) / h) * (h % 3 === 0 ? 1.6 : 1);
    out[i] = 0.25 * v * (0.6 + 0.4 * Math.sin(2 * Math.PI * 4 * t));
  }
  return out;
}
