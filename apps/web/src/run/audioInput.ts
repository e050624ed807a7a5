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

/**
 * The streaming form of `windows()`: push samples as they arrive (any block size), get each full
 * `context + window` window once its `window` new samples are in; `flush()` zero-pads the rest.
 * @example const w = new Windower((x) => send(x)); w.push(block); w.flush()
 */
export class Windower {
  private readonly buf: Float32Array;
  private fill: number;

  constructor(
    private readonly onWindow: (w: Float32Array) => void,
    private readonly window = 512,
    private readonly context = 64,
  ) {
    this.buf = new Float32Array(context + window);
    this.fill = context;
  }

  push(samples: Float32Array): void {
    for (let i = 0; i < samples.length;) {
      const n = Math.min(samples.length - i, this.buf.length - this.fill);
      this.buf.set(samples.subarray(i, i + n), this.fill);
      this.fill += n;
      i += n;
      if (this.fill === this.buf.length) this.emit();
    }
  }

  /** Emits the partial last window (zero-padded); returns whether there was one. */
  flush(): boolean {
    if (this.fill === this.context) return false;
    this.buf.fill(0, this.fill);
    this.emit();
    return true;
  }

  private emit(): void {
    const w = this.buf.slice();
    this.buf.copyWithin(0, this.fill - this.context, this.fill);
    this.fill = this.context;
    this.onWindow(w);
  }
}

/**
 * Linear resampling of one block from `from` Hz to `to` Hz, carrying the fractional position and
 * last sample between blocks so consecutive blocks join seamlessly.
 * @example const r = resampler(48_000); const out = r(block) // ~block.length / 3 samples
 */
export function resampler(from: number, to = TARGET_RATE): (block: Float32Array) => Float32Array {
  const step = from / to;
  let pos = 0; // position of the next output sample, relative to the start of the current block (may be < 0: uses `prev`)
  let prev = 0;
  return (block) => {
    if (from === to) return block.slice();
    const out: number[] = [];
    for (; pos < block.length - 1; pos += step) {
      const i = Math.floor(pos);
      const a = i < 0 ? prev : block[i]!;
      out.push(a + (block[i + 1]! - a) * (pos - i));
    }
    pos -= block.length;
    prev = block[block.length - 1] ?? prev;
    return Float32Array.from(out);
  };
}
