import { describe, expect, it } from 'vitest';
import { decodeWav } from './wav.ts';

interface WavSpec {
  format?: number;
  bits: number;
  channels?: number;
  rate?: number;
  extensible?: boolean;
  extra?: Uint8Array;
}

/** Builds a WAV from raw little-endian sample bytes. */
function wav(spec: WavSpec, body: Uint8Array): Uint8Array {
  const channels = spec.channels ?? 1;
  const fmtSize = spec.extensible ? 40 : 16;
  const extra = spec.extra ?? new Uint8Array();
  const out = new Uint8Array(12 + 8 + fmtSize + extra.length + 8 + body.length);
  const v = new DataView(out.buffer);
  const str = (at: number, s: string) => [...s].forEach((c, i) => v.setUint8(at + i, c.charCodeAt(0)));
  str(0, 'RIFF');
  v.setUint32(4, out.length - 8, true);
  str(8, 'WAVE');
  str(12, 'fmt ');
  v.setUint32(16, fmtSize, true);
  v.setUint16(20, spec.extensible ? 0xfffe : (spec.format ?? 1), true);
  v.setUint16(22, channels, true);
  v.setUint32(24, spec.rate ?? 16000, true);
  v.setUint16(32, (channels * spec.bits) / 8, true);
  v.setUint16(34, spec.bits, true);
  if (spec.extensible) v.setUint16(20 + 24, spec.format ?? 1, true); // sub-format GUID
  out.set(extra, 20 + fmtSize);
  const d = 20 + fmtSize + extra.length;
  str(d, 'data');
  v.setUint32(d + 4, body.length, true);
  out.set(body, d + 8);
  return out;
}
const le = (n: number, f: (v: DataView) => void) => {
  const b = new Uint8Array(n);
  f(new DataView(b.buffer));
  return b;
};

describe('decodeWav', () => {
  it('scales 8, 16, 24 and 32-bit PCM to [-1, 1]', () => {
    expect(Array.from(decodeWav(wav({ bits: 8 }, Uint8Array.of(0, 128, 192))).samples)).toEqual([-1, 0, 0.5]);
    const s16 = le(4, (v) => {
      v.setInt16(0, -32768, true);
      v.setInt16(2, 16384, true);
    });
    expect(Array.from(decodeWav(wav({ bits: 16 }, s16)).samples)).toEqual([-1, 0.5]);
    const s24 = Uint8Array.of(0x00, 0x00, 0xc0, 0x00, 0x00, 0x40); // -0.5, 0.5
    expect(Array.from(decodeWav(wav({ bits: 24 }, s24)).samples)).toEqual([-0.5, 0.5]);
    const s32 = le(4, (v) => v.setInt32(0, -1073741824, true));
    expect(Array.from(decodeWav(wav({ bits: 32, extensible: true }, s32)).samples)).toEqual([-0.5]);
  });

  it('reads 32-bit float and mixes channels down to mono', () => {
    const f = le(16, (v) => {
      v.setFloat32(0, 0.25, true);
      v.setFloat32(4, 0.75, true);
      v.setFloat32(8, -1, true);
      v.setFloat32(12, 0, true);
    });
    const out = decodeWav(wav({ format: 3, bits: 32, channels: 2, rate: 44100 }, f));
    expect(out.sampleRate).toBe(44100);
    expect(Array.from(out.samples)).toEqual([0.5, -0.5]);
  });

  it('skips unknown chunks, including odd-sized ones with their pad byte', () => {
    const list = Uint8Array.of(0x4c, 0x49, 0x53, 0x54, 3, 0, 0, 0, 1, 2, 3, 0); // "LIST", size 3 + pad
    expect(Array.from(decodeWav(wav({ bits: 8, extra: list }, Uint8Array.of(255))).samples)).toEqual([127 / 128]);
  });

  it('says what is wrong with non-WAV data or an unsupported encoding', () => {
    expect(() => decodeWav(new TextEncoder().encode('hello world!'))).toThrow('decodeWav: not a RIFF/WAVE file');
    expect(() => decodeWav(wav({ format: 2, bits: 4 }, Uint8Array.of(0)))).toThrow(
      /decodeWav: unsupported encoding \(format 2, 4 bits\)/,
    );
    const noData = wav({ bits: 8 }, new Uint8Array()).subarray(0, 36);
    expect(() => decodeWav(noData)).toThrow('decodeWav: no data chunk');
  });
});
