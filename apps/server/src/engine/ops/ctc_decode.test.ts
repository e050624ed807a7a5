import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { tensorFromJson } from '@ensemble-studio/core';
import { OPS } from './registry.ts';
import { dictionaryLines } from './ctc_decode.ts';

const ctx = { readText: (p: string) => (p === 'dict.txt' ? 'a\r\nb\nc\n' : 'ä\n€') };

/** One-hot-ish rows: step s puts probability `p` on class cls[s], the rest spread evenly. */
function probs(rows: number[][], c: number, p = 0.8): ReturnType<typeof tensorFromJson> {
  const flat = rows.flatMap((row) =>
    row.flatMap((cls) => Array.from({ length: c }, (_, k) => (k === cls ? p : (1 - p) / (c - 1)))),
  );
  return tensorFromJson('FP32', [rows.length, rows[0]!.length, c], flat);
}

describe('ctc_decode', () => {
  it('reads one character a line, ignoring \\r and the final newline', () => {
    expect(dictionaryLines('a\r\nb\nc\n')).toEqual(['a', 'b', 'c']);
    expect(dictionaryLines(' \nx')).toEqual([' ', 'x']);
  });

  it('collapses repeats, drops blanks and maps the class after the dictionary to a space', () => {
    const out = OPS.ctc_decode.run(
      {
        probs: probs(
          [
            [1, 1, 0, 2, 4],
            [1, 0, 1, 3, 3],
            [0, 0, 0, 0, 0],
          ],
          5,
        ),
      },
      { dictionary: 'dict.txt', space_char: true },
      ctx,
    );
    expect(out.texts?.data).toEqual(['ab ', 'aac', '']);
    expect(out.texts?.datatype).toBe('BYTES');
    const scores = Array.from(out.scores!.data as Float32Array);
    expect(scores[0]).toBeCloseTo(0.8, 6);
    expect(scores[2]).toBe(0);
  });

  it('averages only the kept steps', () => {
    const t = tensorFromJson('FP32', [1, 3, 3], [0.1, 0.9, 0, 0.2, 0.5, 0.3, 0.6, 0.4, 0]);
    const out = OPS.ctc_decode.run({ probs: t }, { dictionary: 'other.txt', space_char: false }, ctx);
    expect(out.texts?.data).toEqual(['ä']);
    expect((out.scores!.data as Float32Array)[0]).toBeCloseTo(0.9, 6);
  });

  it('breaks argmax ties towards the lower class', () => {
    const t = tensorFromJson('FP32', [1, 1, 3], [0.2, 0.4, 0.4]);
    expect(OPS.ctc_decode.run({ probs: t }, { dictionary: 'other.txt', space_char: false }, ctx).texts?.data).toEqual([
      'ä',
    ]);
  });

  it('decodes as a plain greedy loop does, ties to the lower class, for any class count (the argmax reads eight a turn)', () => {
    const step = fc.array(fc.constantFrom(0, 0.25, 0.5), { minLength: 2, maxLength: 40 });
    fc.assert(
      fc.property(step, fc.integer({ min: 1, max: 5 }), fc.integer({ min: 1, max: 2 }), fc.nat(), (row, t, n, seed) => {
        const c = row.length;
        // Rows rotated per step so that the maximum (and its ties) moves about.
        const flat = Array.from({ length: n * t }, (_, s) => row.map((_, k) => row[(k + seed + s) % c]!)).flat();
        const lines = Array.from({ length: c - 1 }, (_, k) => `<${k + 1}>`);
        const dictionary = { readText: () => lines.join('\n') };
        const out = OPS.ctc_decode.run(
          { probs: tensorFromJson('FP32', [n, t, c], flat) },
          { dictionary: 'any.txt', space_char: false },
          dictionary,
        );
        const expected = Array.from({ length: n }, (_, i) => {
          let text = '';
          let prev = -1;
          for (let s = 0; s < t; s++) {
            const probsAt: number[] = flat.slice((i * t + s) * c, (i * t + s + 1) * c);
            const best = probsAt.indexOf(Math.max(...probsAt));
            if (best !== 0 && best !== prev) text += lines[best - 1];
            prev = best;
          }
          return text;
        });
        expect(out.texts?.data).toEqual(expected);
      }),
    );
  });

  it('rejects a class count that does not match the dictionary', () => {
    expect(() =>
      OPS.ctc_decode.run({ probs: probs([[1]], 4) }, { dictionary: 'dict.txt', space_char: true }, ctx),
    ).toThrow(/ctc_decode: input 'probs' has 4 classes but dictionary 'dict.txt' gives 5/);
  });
});
