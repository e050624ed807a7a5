/** Sample rate the example VAD expects. */
export const TARGET_RATE = 16_000;

/**
 * Decodes an audio file (WAV, or anything the browser plays) to mono Float32 at `rate` Hz with
 * WebAudio: decode, then resample through an OfflineAudioContext.
 * @example const samples = await decodeAudio(file) // Float32Array at 16 kHz
 */
export async function decodeAudio(file: Blob, rate = TARGET_RATE): Promise<Float32Array> {
  const ctx = new AudioContext();
  let decoded: AudioBuffer;
  try {
    decoded = await ctx.decodeAudioData(await file.arrayBuffer());
  } finally {
    void ctx.close();
  }
  const frames = Math.max(1, Math.ceil(decoded.duration * rate));
  const offline = new OfflineAudioContext(1, frames, rate);
  const src = offline.createBufferSource();
  src.buffer = decoded; // more channels are mixed down to the one output channel
  src.connect(offline.destination);
  src.start();
  const rendered = await offline.startRendering();
  return rendered.getChannelData(0).slice();
}

/**
 * Splits samples into windows of `context + window` samples where each window starts with the last
 * `context` samples of the previous one (zeros before the first), the layout Silero VAD expects.
 * The last window is zero-padded.
 * @example windows(samples, 512, 64).next().value.length === 576
 */
export function* windows(samples: Float32Array, window = 512, context = 64): Generator<Float32Array> {
  for (let start = 0; start < samples.length; start += window) {
    const w = new Float32Array(context + window);
    for (let i = 0; i < context; i++) {
      const j = start - context + i;
      w[i] = j >= 0 ? (samples[j] ?? 0) : 0;
    }
    w.set(samples.subarray(start, Math.min(samples.length, start + window)), context);
    yield w;
  }
}

/** How many windows `windows()` yields. */
export const windowCount = (samples: number, window = 512): number => Math.ceil(samples / window);
