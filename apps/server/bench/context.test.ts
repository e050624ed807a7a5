// The bench's OCR text image: drawn by ImageMagick, and never a silent stand-in (a fresh machine without ImageMagick
// once timed an early exit under the OCR scenario's name).
import { chmodSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { tempDir } from '../src/testing/tempDir.ts';
import { textImage } from './context.ts';

const PATH = process.env.PATH;
afterEach(() => {
  process.env.PATH = PATH;
});

/** Puts a `convert` that runs `script` (sh) first on PATH. */
function fakeConvert(script: string): void {
  const dir = tempDir('fake-convert-');
  writeFileSync(join(dir, 'convert'), `#!/bin/sh\n${script}\n`);
  chmodSync(join(dir, 'convert'), 0o755);
  process.env.PATH = `${dir}:${PATH}`;
}

describe('textImage', () => {
  it("is ImageMagick's drawing of the text: 640×160 RGB, dark text on white", () => {
    const t = textImage();
    expect([t.datatype, t.shape]).toEqual(['UINT8', [160, 640, 3]]);
    const data = t.data as Uint8Array;
    const dark = data.filter((v) => v < 64).length;
    expect(data[0]).toBe(255);
    expect(dark).toBeGreaterThan(1000);
    expect(dark).toBeLessThan(data.length / 4);
  });

  it('stops the bench with what to install when ImageMagick cannot draw it', () => {
    fakeConvert('echo "convert: no such font" >&2; exit 1');
    expect(() => textImage()).toThrow(
      /ImageMagick in DejaVu Sans, and could not: convert: no such font\n.*apt-get install imagemagick fonts-dejavu-core/,
    );
  });

  it('refuses an image of the wrong size rather than timing it', () => {
    fakeConvert('printf abc');
    expect(() => textImage()).toThrow('ImageMagick drew 3 bytes for a 640×160 RGB text image');
  });
});
