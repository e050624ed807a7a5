import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { decodeNpy } from './npy.ts';

/** A version-1.0 .npy file with a padded header, as numpy writes it. */
function npy(descr: string, shape: number[], body: Uint8Array, fortran = false): Uint8Array {
  const dims = shape.length === 1 ? `${shape[0]},` : shape.join(', ');
  let header = `{'descr': '${descr}', 'fortran_order': ${fortran ? 'True' : 'False'}, 'shape': (${dims}), }`;
  header += ' '.repeat(63 - ((10 + header.length) % 64)) + '\n';
  const out = new Uint8Array(10 + header.length + body.length);
  out.set([0x93, 0x4e, 0x55, 0x4d, 0x50, 0x59, 1, 0, header.length & 0xff, header.length >> 8]);
  out.set(new TextEncoder().encode(header), 10);
  out.set(body, 10 + header.length);
  return out;
}

describe('decodeNpy', () => {
  it('reads numbers with their dtype and shape', () => {
    const t = decodeNpy(npy('<f4', [2, 2], new Uint8Array(Float32Array.of(1, 2.5, -3, 4).buffer)));
    expect(t.datatype).toBe('FP32');
    expect(t.shape).toEqual([2, 2]);
    expect(Array.from(t.data as Float32Array)).toEqual([1, 2.5, -3, 4]);
    const i = decodeNpy(npy('<i8', [3], new Uint8Array(BigInt64Array.of(-1n, 0n, 7n).buffer)));
    expect([i.datatype, ...Array.from(i.data as BigInt64Array)]).toEqual(['INT64', -1n, 0n, 7n]);
    expect(decodeNpy(npy('|u1', [], Uint8Array.of(9))).shape).toEqual([]);
  });

  it('reads byte and unicode strings as BYTES', () => {
    expect(decodeNpy(npy('|S3', [2], new TextEncoder().encode('ab\0xyz'))).data).toEqual(['ab', 'xyz']);
    expect(decodeNpy(npy('<U2', [1], new Uint8Array(Uint32Array.of(0x20ac, 0).buffer))).data).toEqual(['€']);
  });

  it('reads a file written by numpy itself', () => {
    const b64 = execFileSync(
      'python3',
      [
        '-c',
        'import io,base64,numpy as np; b=io.BytesIO(); np.save(b, np.arange(6, dtype=np.float64).reshape(2,3) / 4); print(base64.b64encode(b.getvalue()).decode())',
      ],
      { encoding: 'utf8' },
    );
    const t = decodeNpy(new Uint8Array(Buffer.from(b64.trim(), 'base64')));
    expect([t.datatype, t.shape]).toEqual(['FP64', [2, 3]]);
    expect(Array.from(t.data as Float64Array)).toEqual([0, 0.25, 0.5, 0.75, 1, 1.25]);
  });

  it('says what is unsupported or broken', () => {
    expect(() => decodeNpy(Uint8Array.of(1, 2, 3))).toThrow('decodeNpy: not a .npy file');
    expect(() => decodeNpy(npy('>f4', [1], new Uint8Array(4)))).toThrow(/decodeNpy: unsupported dtype '>f4'/);
    expect(() => decodeNpy(npy('<f4', [2, 2], new Uint8Array(16), true))).toThrow(/Fortran-ordered/);
    expect(() => decodeNpy(npy('<f4', [4], new Uint8Array(8)))).toThrow(
      /decodeNpy: data is 8 bytes, shape \[4\] needs 16/,
    );
  });
});
