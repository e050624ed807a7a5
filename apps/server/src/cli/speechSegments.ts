// Speech segments from per-window speech probabilities, as Silero VAD's `get_speech_timestamps`
// (utils_vad.py, v5 defaults) turns the model's outputs into timestamps.

/** A stretch of speech: sample offsets [start, end) in the (resampled) signal. */
export interface SpeechSegment {
  start: number;
  end: number;
}

export interface SegmentOptions {
  sampleRate: number;
  /** Samples per probability (512 at 16 kHz). */
  window: number;
  /** Length of the whole signal in samples (the last segment may run to it). */
  length: number;
  threshold?: number;
  minSpeechMs?: number;
  minSilenceMs?: number;
  speechPadMs?: number;
}

/**
 * Silero's rule: speech starts at the first window ≥ threshold; it ends where the probability fell
 * below threshold − 0.15 and stayed there min_silence_ms; segments not longer than min_speech_ms are
 * dropped; each is padded by speech_pad_ms (half the gap when two are closer than twice that).
 * Defaults: threshold 0.5, min_speech 250 ms, min_silence 100 ms, pad 30 ms (max_speech unbounded).
 * @example speechSegments([0, 0.9, 0.9, 0.9, 0.9, 0.9, 0.9, 0.9, 0.9, 0, 0, 0, 0, 0], { sampleRate: 16000, window: 512, length: 7168 }) // [{ start: 32, end: 5088 }]
 */
export function speechSegments(probs: ArrayLike<number>, o: SegmentOptions): SpeechSegment[] {
  const threshold = o.threshold ?? 0.5;
  const negThreshold = Math.max(threshold - 0.15, 0.01);
  const minSpeech = (o.sampleRate * (o.minSpeechMs ?? 250)) / 1000;
  const minSilence = (o.sampleRate * (o.minSilenceMs ?? 100)) / 1000;
  const pad = (o.sampleRate * (o.speechPadMs ?? 30)) / 1000;
  const speeches: SpeechSegment[] = [];
  let start: number | undefined;
  let tempEnd = 0;
  for (let i = 0; i < probs.length; i++) {
    const p = probs[i]!;
    const at = o.window * i;
    if (p >= threshold && tempEnd) tempEnd = 0;
    if (p >= threshold && start === undefined) {
      start = at;
      continue;
    }
    if (p < negThreshold && start !== undefined) {
      if (!tempEnd) tempEnd = at;
      if (at - tempEnd < minSilence) continue;
      if (tempEnd - start > minSpeech) speeches.push({ start, end: tempEnd });
      start = undefined;
      tempEnd = 0;
    }
  }
  if (start !== undefined && o.length - start > minSpeech) speeches.push({ start, end: o.length });
  for (let i = 0; i < speeches.length; i++) {
    const s = speeches[i]!;
    if (i === 0) s.start = Math.trunc(Math.max(0, s.start - pad));
    const next = speeches[i + 1];
    if (next) {
      const gap = next.start - s.end;
      if (gap < 2 * pad) {
        s.end += Math.floor(gap / 2);
        next.start = Math.max(0, next.start - Math.floor(gap / 2));
      } else {
        s.end = Math.trunc(Math.min(o.length, s.end + pad));
        next.start = Math.trunc(Math.max(0, next.start - pad));
      }
    } else {
      s.end = Math.trunc(Math.min(o.length, s.end + pad));
    }
  }
  return speeches;
}
