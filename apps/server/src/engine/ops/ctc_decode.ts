import type { Tensor } from '@ensemble-studio/core';
import { dim, input, resolveValues } from './check.ts';
import type { OpImpl } from './opTypes.ts';

let lastText: string | undefined;
let lastLines: string[] = [];

/**
 * The characters of a PP-OCR dictionary: one per line, `\r` stripped, the empty string after a
 * final newline ignored.
 * @example dictionaryLines('a\nb\n') // ['a', 'b']
 */
export function dictionaryLines(text: string): string[] {
  if (text === lastText) return lastLines;
  const lines = text.split('\n').map((l) => (l.endsWith('\r') ? l.slice(0, -1) : l));
  if (lines.length > 0 && lines[lines.length - 1] === '') lines.pop();
  lastText = text;
  lastLines = lines;
  return lines;
}

/**
 * Greedy CTC decode of probs [N,T,C]: argmax per step (first index on ties), collapse repeats,
 * drop blank (class 0); class i is dictionary line i−1, and the class after the last line is ' '
 * when space_char. C must equal lines + 1 (+1 with space_char). texts BYTES [N]; scores FP32 [N]
 * = mean of the kept steps' max probs (0 when nothing is kept).
 */
export const ctcDecode: OpImpl = {
  id: 'ctc_decode',
  run(inputs, values, ctx) {
    const v = resolveValues('ctc_decode', values);
    const probs = input('ctc_decode', inputs, 'probs', 'FP32', 3);
    // The cached lines themselves, not a copy (PP-OCR's has 6,623: a copy a call is ~50 KB of garbage); the
    // space, when asked for, is the class after them.
    const lines = dictionaryLines(ctx.readText(String(v.dictionary)));
    const classes = lines.length + (v.space_char === true ? 1 : 0);
    const [n, t, c] = [dim(probs, 0), dim(probs, 1), dim(probs, 2)];
    if (c !== classes + 1) {
      throw new Error(
        `ctc_decode: input 'probs' has ${c} classes but dictionary '${String(v.dictionary)}' gives ${classes + 1} (${classes} characters${v.space_char === true ? ' incl. space' : ''} + blank)`,
      );
    }
    const p = probs.data as Float32Array;
    const texts: string[] = [];
    const scores = new Float32Array(n);
    for (let i = 0; i < n; i++) {
      let text = '';
      let sum = 0;
      let kept = 0;
      let prev = -1;
      for (let s = 0; s < t; s++) {
        const base = (i * t + s) * c;
        const best = argmax(p, base, c);
        if (best !== 0 && best !== prev) {
          text += best <= lines.length ? lines[best - 1]! : ' ';
          sum += p[base + best]!;
          kept++;
        }
        prev = best;
      }
      texts.push(text);
      scores[i] = kept === 0 ? 0 : sum / kept;
    }
    const out: Record<string, Tensor> = {
      texts: { datatype: 'BYTES', shape: [n], data: texts },
      scores: { datatype: 'FP32', shape: [n], data: scores },
    };
    return out;
  },
};

/**
 * The class with the highest probability in `p[base … base + c)`, the first on ties. The hot loop (N·T·C reads, 4M
 * for 8 lines), eight reads a turn: in a thread that has detached a buffer (every model worker), each turn's reads
 * share one check that the buffer is still there instead of one a read (engine README, "Tables in plain arrays, and
 * eight reads a turn").
 * `!` instead of `?? 0` keeps each a plain typed-array load.
 */
function argmax(p: Float32Array, base: number, c: number): number {
  let best = base;
  let bestP = p[base]!;
  const end = base + c;
  let k = base + 1;
  for (; k + 7 < end; k += 8) {
    const q0 = p[k]!;
    const q1 = p[k + 1]!;
    const q2 = p[k + 2]!;
    const q3 = p[k + 3]!;
    const q4 = p[k + 4]!;
    const q5 = p[k + 5]!;
    const q6 = p[k + 6]!;
    const q7 = p[k + 7]!;
    if (q0 > bestP) {
      best = k;
      bestP = q0;
    }
    if (q1 > bestP) {
      best = k + 1;
      bestP = q1;
    }
    if (q2 > bestP) {
      best = k + 2;
      bestP = q2;
    }
    if (q3 > bestP) {
      best = k + 3;
      bestP = q3;
    }
    if (q4 > bestP) {
      best = k + 4;
      bestP = q4;
    }
    if (q5 > bestP) {
      best = k + 5;
      bestP = q5;
    }
    if (q6 > bestP) {
      best = k + 6;
      bestP = q6;
    }
    if (q7 > bestP) {
      best = k + 7;
      bestP = q7;
    }
  }
  for (; k < end; k++) {
    const q = p[k]!;
    if (q > bestP) {
      best = k;
      bestP = q;
    }
  }
  return best - base;
}
