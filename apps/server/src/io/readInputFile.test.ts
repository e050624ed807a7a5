import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { tensorFromJson } from '@ensemble-studio/core';
import { readInputFile } from './readInputFile.ts';
import { encodePng } from '../testing/encodePng.ts';
import { tempDir } from '../testing/tempDir.ts';

const dir = tempDir('read-input-');
const file = (name: string, bytes: Uint8Array | string) => {
  const p = join(dir, name);
  writeFileSync(p, bytes);
  return p;
};

describe('readInputFile', () => {
  const png = file('a.PNG', encodePng(tensorFromJson('UINT8', [2, 3, 3], new Array(18).fill(5))));

  it('picks the decoder by extension', async () => {
    expect((await readInputFile(png)).shape).toEqual([2, 3, 3]);
    const wav = new Uint8Array(46);
    const v = new DataView(wav.buffer);
    wav.set(new TextEncoder().encode('RIFF____WAVEfmt '), 0);
    v.setUint32(16, 16, true);
    v.setUint16(20, 1, true);
    v.setUint16(22, 1, true);
    v.setUint32(24, 8000, true);
    v.setUint16(34, 16, true);
    wav.set(new TextEncoder().encode('data'), 36);
    v.setUint32(40, 2, true);
    v.setInt16(44, 16384, true);
    const audio = await readInputFile(file('a.wav', wav));
    expect([audio.datatype, audio.shape, Array.from(audio.data as Float32Array)]).toEqual(['FP32', [1], [0.5]]);
    expect((await readInputFile(file('a.json', '[[1,2]]'))).shape).toEqual([1, 2]);
  });

  it('adds a batch dim of 1 and checks dtype and shape against the spec', async () => {
    expect((await readInputFile(png, { datatype: 'UINT8', shape: [-1, -1, -1, 3] })).shape).toEqual([1, 2, 3, 3]);
    await expect(readInputFile(png, { datatype: 'FP32', shape: [-1, -1, 3] })).rejects.toThrow(
      /a.PNG: holds UINT8 \[2,3,3\] but the input expects FP32 \[-1,-1,3\]/,
    );
    const j = await readInputFile(file('b.json', '[1, 2]'), { datatype: 'INT64', shape: [2] });
    expect(j.datatype).toBe('INT64');
  });

  it('names the file when the type is unknown or the data is bad', async () => {
    await expect(readInputFile(file('x.gif', 'GIF89a'))).rejects.toThrow(/x.gif: unsupported file type '.gif'/);
    await expect(readInputFile(file('bad.png', 'not a png'))).rejects.toThrow(
      /bad.png: decodeImage: not a PNG or JPEG/,
    );
  });
});
