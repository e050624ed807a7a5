// Tests write their own WAV inputs with this (the studio only decodes audio).

/**
 * A 16-bit PCM mono WAV of `pcm` sampled at `rate` Hz.
 * @example decodeWav(encodeWav(Int16Array.of(0, 16384, -16384), 16000)) // 3 samples at 16 kHz (io/wav.ts decodes)
 */
export function encodeWav(pcm: Int16Array, rate: number): Buffer {
  const bytes = pcm.length * 2;
  const out = Buffer.alloc(44 + bytes);
  out.write('RIFF', 0);
  out.writeUInt32LE(36 + bytes, 4);
  out.write('WAVE', 8);
  out.write('fmt ', 12);
  out.writeUInt32LE(16, 16);
  out.writeUInt16LE(1, 20); // PCM
  out.writeUInt16LE(1, 22); // mono
  out.writeUInt32LE(rate, 24);
  out.writeUInt32LE(rate * 2, 28);
  out.writeUInt16LE(2, 32);
  out.writeUInt16LE(16, 34);
  out.write('data', 36);
  out.writeUInt32LE(bytes, 40);
  for (let i = 0; i < pcm.length; i++) out.writeInt16LE(pcm[i]!, 44 + i * 2);
  return out;
}
