/** Decoded audio: mono float samples in [-1, 1]. */
export interface Wav {
  sampleRate: number;
  samples: Float32Array;
}

interface Format {
  code: number;
  channels: number;
  sampleRate: number;
  bits: number;
}

const WAVE_FORMAT_PCM = 1;
const WAVE_FORMAT_FLOAT = 3;
const WAVE_FORMAT_EXTENSIBLE = 0xfffe;

function tag(v: DataView, at: number): string {
  return String.fromCharCode(v.getUint8(at), v.getUint8(at + 1), v.getUint8(at + 2), v.getUint8(at + 3));
}

function readFormat(v: DataView, at: number, size: number): Format {
  if (size < 16) throw new Error(`decodeWav: fmt chunk too short (${size} bytes)`);
  let code = v.getUint16(at, true);
  // WAVE_FORMAT_EXTENSIBLE keeps the real format in the first 2 bytes of the sub-format GUID.
  if (code === WAVE_FORMAT_EXTENSIBLE && size >= 26) code = v.getUint16(at + 24, true);
  return {
    code,
    channels: v.getUint16(at + 2, true),
    sampleRate: v.getUint32(at + 4, true),
    bits: v.getUint16(at + 14, true),
  };
}

/** A reader for one sample of the format, scaled to [-1, 1]. */
function sampleReader(f: Format): (v: DataView, at: number) => number {
  if (f.code === WAVE_FORMAT_FLOAT && f.bits === 32) return (v, at) => v.getFloat32(at, true);
  if (f.code === WAVE_FORMAT_FLOAT && f.bits === 64) return (v, at) => v.getFloat64(at, true);
  if (f.code === WAVE_FORMAT_PCM) {
    switch (f.bits) {
      case 8:
        return (v, at) => (v.getUint8(at) - 128) / 128;
      case 16:
        return (v, at) => v.getInt16(at, true) / 32768;
      case 24:
        return (v, at) =>
          (((v.getUint8(at + 2) << 24) | (v.getUint8(at + 1) << 16) | (v.getUint8(at) << 8)) >> 8) / 8388608;
      case 32:
        return (v, at) => v.getInt32(at, true) / 2147483648;
    }
  }
  throw new Error(
    `decodeWav: unsupported encoding (format ${f.code}, ${f.bits} bits); use PCM 8/16/24/32-bit or 32-bit float`,
  );
}

/**
 * Decodes a RIFF/WAVE file (PCM 8/16/24/32-bit, IEEE float 32/64-bit, plain or EXTENSIBLE) and
 * mixes all channels down to mono by averaging.
 * @throws Error `decodeWav: …` for non-WAV data, a missing fmt/data chunk or an unsupported encoding.
 * @example decodeWav(readFileSync('speech.wav')).sampleRate // 16000
 */
export function decodeWav(bytes: Uint8Array): Wav {
  const v = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (bytes.length < 12 || tag(v, 0) !== 'RIFF' || tag(v, 8) !== 'WAVE')
    throw new Error('decodeWav: not a RIFF/WAVE file');
  let format: Format | undefined;
  let data: { at: number; size: number } | undefined;
  for (let at = 12; at + 8 <= bytes.length;) {
    const id = tag(v, at);
    const size = v.getUint32(at + 4, true);
    if (id === 'fmt ') format = readFormat(v, at + 8, size);
    if (id === 'data') data = { at: at + 8, size: Math.min(size, bytes.length - at - 8) };
    at += 8 + size + (size % 2);
  }
  if (format === undefined) throw new Error('decodeWav: no fmt chunk');
  if (data === undefined) throw new Error('decodeWav: no data chunk');
  if (format.channels < 1 || format.sampleRate < 1)
    throw new Error(`decodeWav: bad fmt chunk (${format.channels} channels, ${format.sampleRate} Hz)`);
  const read = sampleReader(format);
  const step = format.bits / 8;
  const frames = Math.floor(data.size / (step * format.channels));
  const samples = new Float32Array(frames);
  for (let i = 0; i < frames; i++) {
    let sum = 0;
    for (let c = 0; c < format.channels; c++) sum += read(v, data.at + (i * format.channels + c) * step);
    samples[i] = sum / format.channels;
  }
  return { sampleRate: format.sampleRate, samples };
}
