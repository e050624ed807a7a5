import { describe, expect, it } from 'vitest';
import { speechSegments } from './speechSegments.ts';

const o = { sampleRate: 16000, window: 512 };
/** Probabilities from a pattern: '#' = 0.9 (speech), '~' = 0.4 (between the thresholds), '.' = 0.05. */
const probs = (p: string) => [...p].map((c) => ({ '#': 0.9, '~': 0.4, '.': 0.05 })[c]!);

describe('speechSegments (Silero get_speech_timestamps)', () => {
  it('starts at the first window ≥ 0.5, ends where 100 ms of < 0.35 began, and pads 30 ms each side', () => {
    // speech windows 1–8 (512–4608), then silence: end at 4608, padded to 5088; start 512 − 480 = 32.
    expect(speechSegments(probs('.########.....'), { ...o, length: 14 * 512 })).toEqual([{ start: 32, end: 5088 }]);
  });

  it('keeps speech going through probabilities between the two thresholds and through pauses under 100 ms', () => {
    expect(speechSegments(probs('.####~~~~####.....'), { ...o, length: 18 * 512 })).toEqual([
      { start: 32, end: 13 * 512 + 480 },
    ]);
    // a 3-window (96 ms) pause is bridged; a 5-window (160 ms) one splits.
    expect(speechSegments(probs('.#########...#########.....'), { ...o, length: 27 * 512 })).toHaveLength(1);
    expect(speechSegments(probs('.#########.....#########.....'), { ...o, length: 29 * 512 })).toHaveLength(2);
  });

  it('drops speech not longer than 250 ms and runs an unfinished segment to the end of the signal', () => {
    expect(speechSegments(probs('.#######......'), { ...o, length: 14 * 512 })).toEqual([]);
    expect(speechSegments(probs('....##########'), { ...o, length: 14 * 512 + 100 })).toEqual([
      { start: 4 * 512 - 480, end: 14 * 512 + 100 },
    ]);
  });

  it('splits the gap between two close segments instead of padding into each other', () => {
    // 4 silent windows (2048 samples) ≥ 2·480 apart: each side padded by 480.
    const [a, b] = speechSegments(probs('.#########....#########.....'), { ...o, length: 28 * 512, minSilenceMs: 50 });
    expect(a!.end).toBe(10 * 512 + 480);
    expect(b!.start).toBe(14 * 512 - 480);
    // with 50 ms of padding asked (800 samples each side), the 2048-sample gap is split down the middle.
    const [c, d] = speechSegments(probs('.#########....#########.....'), {
      ...o,
      length: 28 * 512,
      minSilenceMs: 50,
      speechPadMs: 70,
    });
    expect(c!.end).toBe(d!.start);
  });

  it('finds nothing in silence or an empty signal', () => {
    expect(speechSegments(probs('..........'), { ...o, length: 5120 })).toEqual([]);
    expect(speechSegments([], { ...o, length: 0 })).toEqual([]);
  });
});
