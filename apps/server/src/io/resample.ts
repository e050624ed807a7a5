/** Zero crossings of the sinc on each side (torchaudio's `lowpass_filter_width`). */
const LOBES = 6;
/** Cut-off as a share of the lower rate's Nyquist frequency (torchaudio's `rolloff`). */
const ROLLOFF = 0.99;
/** The largest filter table built (phases × taps): 16 M numbers, 128 MB. */
const MAX_TABLE = 16 * 1024 * 1024;

const gcd = (a: number, b: number): number => (b === 0 ? a : gcd(b, a % b));

/**
 * One sinc-with-Hann-window filter row per output phase, as torchaudio's `_get_sinc_resample_kernel`:
 * tap k of phase i sits at t = (k − width)/orig − i/next (input periods), scaled to the cut-off.
 */
function filterTable(orig: number, next: number): { table: Float64Array; taps: number; width: number } {
  const base = Math.min(orig, next) * ROLLOFF;
  const width = Math.ceil((LOBES * orig) / base);
  const taps = 2 * width + orig;
  const table = new Float64Array(next * taps);
  for (let i = 0; i < next; i++) {
    for (let k = 0; k < taps; k++) {
      const t = Math.min(Math.max(((k - width) / orig - i / next) * base, -LOBES), LOBES);
      const window = Math.cos((t * Math.PI) / LOBES / 2) ** 2;
      const x = t * Math.PI;
      table[i * taps + k] = (x === 0 ? 1 : Math.sin(x) / x) * window * (base / orig);
    }
  }
  return { table, taps, width };
}

/**
 * Band-limited resampling, the algorithm of `torchaudio.functional.resample` with its defaults
 * ("sinc_interp_hann", 6 lobes, rolloff 0.99), which Silero VAD's `read_audio` applies: the same
 * anti-aliasing a Python reference hears, where linear interpolation would fold high frequencies
 * into the band. The output has ceil(n · to / from) samples.
 * @throws Error `resample: …` for rates that are not positive integers, or so coprime that the filter table would not fit.
 * @example resample(new Float32Array(44100), 44100, 16000).length === 16000
 */
export function resample(samples: Float32Array, from: number, to: number): Float32Array {
  if (!Number.isInteger(from) || !Number.isInteger(to) || from < 1 || to < 1)
    throw new Error(`resample: rates must be positive whole numbers of Hz (got ${from} → ${to})`);
  if (from === to) return samples.slice();
  const g = gcd(from, to);
  const [orig, next] = [from / g, to / g];
  const size = next * (2 * Math.ceil((LOBES * orig) / (Math.min(orig, next) * ROLLOFF)) + orig);
  if (size > MAX_TABLE)
    throw new Error(
      `resample: ${from} Hz → ${to} Hz needs a ${size}-entry filter table (the rates share only a factor of ${g}); convert the file to a common rate first`,
    );
  const { table, taps, width } = filterTable(orig, next);
  const n = samples.length;
  const out = new Float32Array(Math.ceil((next * n) / orig));
  for (let m = 0; m < out.length; m++) {
    const phase = m % next;
    const start = ((m - phase) / next) * orig - width;
    const row = phase * taps;
    let acc = 0;
    for (let k = Math.max(0, -start), end = Math.min(taps, n - start); k < end; k++)
      acc += table[row + k]! * samples[start + k]!;
    out[m] = acc;
  }
  return out;
}
