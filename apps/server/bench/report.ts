// What the bench collects and prints: each metric's range over blocks, printed beside the same run's ceiling,
// and each contender's page faults and CPU per request and garbage collection per trial.
import type { Contender, Measured, Usage, WarmedUp } from './measure.ts';
import { type Range, summarize } from './stats.ts';

/** A number for the tables: integers as they are, otherwise 3 decimals (1 from 100 up). */
function fmt(v: number): string {
  if (Number.isInteger(v)) return String(v);
  return Math.abs(v) >= 100 ? v.toFixed(1) : v.toFixed(3);
}

const range = (r: Range) => `${fmt(r.median)} (${fmt(r.min)}–${fmt(r.max)})`;

/** A warm-up as the usage table shows it: trials and seconds, and whether it was still getting faster when it ended. */
const warmedUp = (w: WarmedUp) => `${w.trials} trials, ${(w.ms / 1000).toFixed(1)} s${w.steady ? '' : ', not steady'}`;

/**
 * The bench's results: metrics with their per-block values, the ceilings printed beside them, and per-contender usage.
 * @example const r = new BenchReport(console.log); r.add('ratio', [1.1, 1.0, 1.2], ['direct_ms']); r.print();
 */
export class BenchReport {
  /** Every metric's range over its blocks, in the order added. */
  readonly ranges: Record<string, Range> = {};
  /** Per contender: its trial time over blocks, page faults and CPU per request, GC time and count per trial. */
  readonly usage: Record<string, Usage & { ms: Range }> = {};
  /** Anything else the JSON carries (the header, the VAD levels), keyed as it appears there. */
  readonly extra: Record<string, unknown> = {};
  private readonly beside: Record<string, string[]> = {};

  constructor(private readonly log: (line: string) => void) {}

  /** Records `name` from its per-block values; `beside` names the metrics (its same-run ceiling) printed next to it. */
  add(name: string, blocks: readonly number[], beside: string[] = []): Range {
    const r = summarize(blocks);
    this.ranges[name] = r;
    this.beside[name] = beside;
    return r;
  }

  /** Names the metrics printed beside `name` (a metric recorded by `addMeasured`). */
  setBeside(name: string, beside: string[]): void {
    this.beside[name] = beside;
  }

  /** Records each contender's `<name>_ms` range and its usage; returns the per-block ms by contender name. */
  addMeasured(contenders: readonly Contender[], m: Measured): Record<string, number[]> {
    const out: Record<string, number[]> = {};
    contenders.forEach((c, k) => {
      out[c.name] = m.ms[k]!;
      const ms = this.add(`${c.name}_ms`, m.ms[k]!);
      this.usage[c.name] = { ms, ...m.usage[k]! };
    });
    return out;
  }

  /** The medians under their metric names (what other tools read), then `ranges`, `usage` and the extras. */
  json(): Record<string, unknown> {
    const medians = Object.fromEntries(Object.entries(this.ranges).map(([k, r]) => [k, r.median]));
    return { ...medians, ranges: this.ranges, usage: this.usage, ...this.extra };
  }

  /** Prints the metric table (median, min–max over blocks, the ceiling beside) and the usage table. */
  print(): void {
    this.log(`\n${'metric'.padEnd(40)}${'median (min–max over blocks)'.padEnd(34)}beside it, same run`);
    for (const [name, r] of Object.entries(this.ranges)) {
      const next = this.beside[name]!.filter((b) => this.ranges[b]).map((b) => `${b} ${range(this.ranges[b]!)}`);
      this.log(`${name.padEnd(40)}${range(r).padEnd(34)}${next.join(', ')}`);
    }
    this.log(
      `\n${'contender'.padEnd(40)}${'ms per trial'.padEnd(34)}${'minor faults/req'.padEnd(18)}${'CPU ms/req'.padEnd(12)}${'GC ms/trial (GCs)'.padEnd(20)}warm-up`,
    );
    for (const [name, u] of Object.entries(this.usage))
      this.log(
        `${name.padEnd(40)}${range(u.ms).padEnd(34)}${fmt(Math.round(u.minorFaultsPerRequest)).padEnd(18)}${fmt(u.cpuMsPerRequest).padEnd(12)}${`${fmt(u.gcMsPerTrial)} (${u.gcPerTrial.toFixed(1)})`.padEnd(20)}${warmedUp(u.warmUp)}`,
      );
  }
}
