// The custom metrics Python models define (`pb_utils.MetricFamily` and its `Metric`s), held server-wide as Triton
// holds them in its metrics registry: one family per name, one series per family and label set. A series is shared
// by every instance that creates it (two instances of a model counting into `{model="m"}` count into one series,
// as prometheus-cpp's `Family::Add` hands both the same metric) and is removed when the last of them ends, as
// Triton removes a metric once its last reference is deleted. Families stay for the engine's life, as Triton's do.

export type CustomMetricKind = 'counter' | 'gauge' | 'histogram';

/** One series as /metrics shows it: its labels, value (a histogram's sum), and a histogram's buckets and count. */
export interface CustomSeries {
  labels: Record<string, string>;
  value: number;
  /** Histogram only: the upper bounds, each with the observations at or below it (cumulative), and the count. */
  buckets?: { le: number; count: number }[];
  count?: number;
}

export interface CustomFamily {
  name: string;
  description: string;
  kind: CustomMetricKind;
  series: CustomSeries[];
}

/** Most series held at once, over all families: a model making a label set per request cannot grow the server without end. */
export const MAX_CUSTOM_SERIES = 10_000;
/** Most families: they stay for the engine's life, so their names are bounded too. */
export const MAX_CUSTOM_FAMILIES = 1000;
/** Most bytes of a name, a description, a label name or value (Triton's are unbounded; Prometheus scrapers are not). */
const MAX_TEXT = 1024;
const MAX_LABELS = 32;
const MAX_BUCKETS = 256;
const KINDS: readonly CustomMetricKind[] = ['counter', 'gauge', 'histogram'];
// Prometheus's own rules for names (prometheus-cpp refuses others when the family is built).
const METRIC_NAME = /^[a-zA-Z_:][a-zA-Z0-9_:]*$/;
const LABEL_NAME = /^[a-zA-Z_][a-zA-Z0-9_]*$/;
/** The prefixes of the families the server publishes itself (Triton's `nv_*`, the studio's `studio_*`). */
const RESERVED = /^(nv|studio)_/;

interface Series extends CustomSeries {
  /** The instances that created this series (the stub does not report a Metric object's end: an instance holds its
   * series until it ends). */
  owners: Set<object>;
}

interface Family {
  description: string;
  kind: CustomMetricKind;
  series: Map<string, Series>;
}

/** What a stub sends about its metrics (`type: 'metric'` frames; Python backend PROTOCOL.md). */
export interface MetricMessage {
  op?: unknown;
  name?: unknown;
  description?: unknown;
  kind?: unknown;
  labels?: unknown;
  buckets?: unknown;
  value?: unknown;
}

/**
 * The server's custom metrics. `apply` takes one stub message for the instance `owner` and returns why it was
 * refused (for the instance's log), or undefined; `release(owner)` drops what that instance held.
 * @example m.apply(inst, { op: 'family', name: 'latency_ns', description: 'Time', kind: 'counter' })
 */
export class CustomMetrics {
  private readonly families = new Map<string, Family>();
  private seriesCount = 0;

  apply(owner: object, msg: MetricMessage): string | undefined {
    const name = text(msg.name);
    if (name === undefined || !METRIC_NAME.test(name)) return `a metric family name must match ${METRIC_NAME.source}`;
    if (msg.op === 'family') return this.declare(name, msg);
    const family = this.families.get(name);
    if (!family) return `metric family '${name}' was not declared`;
    const labels = labelsOf(msg.labels);
    if (typeof labels === 'string') return `metric family '${name}': ${labels}`;
    const key = seriesKey(labels);
    if (msg.op === 'create') return this.create(owner, name, family, key, labels, msg.buckets);
    const series = family.series.get(key);
    if (!series || !series.owners.has(owner)) return `metric family '${name}' has no metric with labels ${key}`;
    const value = msg.value;
    if (typeof value !== 'number' || Number.isNaN(value)) return `metric family '${name}': a value must be a number`;
    return update(name, family.kind, series, msg.op, value);
  }

  /** The instance `owner` ended: its metrics go, and each series no other instance holds goes with them. */
  release(owner: object): void {
    for (const family of this.families.values())
      for (const [key, series] of family.series) {
        if (!series.owners.delete(owner) || series.owners.size > 0) continue;
        family.series.delete(key);
        this.seriesCount--;
      }
  }

  /** Every family with its series, in the order they were declared. */
  snapshot(): CustomFamily[] {
    return [...this.families].map(([name, f]) => ({
      name,
      description: f.description,
      kind: f.kind,
      series: [...f.series.values()].map(({ labels, value, buckets, count }) => ({
        labels,
        value,
        ...(buckets ? { buckets: buckets.map((b) => ({ ...b })), count: count ?? 0 } : {}),
      })),
    }));
  }

  private declare(name: string, msg: MetricMessage): string | undefined {
    if (RESERVED.test(name)) return `metric family '${name}': names starting nv_ or studio_ are the server's own`;
    const kind = msg.kind as CustomMetricKind;
    if (!KINDS.includes(kind)) return `metric family '${name}': kind must be one of ${KINDS.join(', ')}`;
    const description = typeof msg.description === 'string' ? msg.description.slice(0, MAX_TEXT) : '';
    const known = this.families.get(name);
    // The first declaration's description stays, as prometheus-cpp keeps a registered family's help.
    if (known)
      return known.kind === kind
        ? undefined
        : `metric family '${name}' is already a ${known.kind}; it cannot be declared again as a ${kind}`;
    if (this.families.size >= MAX_CUSTOM_FAMILIES)
      return `metric family '${name}': the server holds ${MAX_CUSTOM_FAMILIES} custom metric families already`;
    this.families.set(name, { description, kind, series: new Map() });
    return undefined;
  }

  private create(
    owner: object,
    name: string,
    family: Family,
    key: string,
    labels: Record<string, string>,
    rawBuckets: unknown,
  ): string | undefined {
    let series = family.series.get(key);
    if (!series) {
      if (this.seriesCount >= MAX_CUSTOM_SERIES)
        return `metric family '${name}': the server holds ${MAX_CUSTOM_SERIES} custom metrics already`;
      const buckets = family.kind === 'histogram' ? bucketsOf(rawBuckets) : undefined;
      if (typeof buckets === 'string') return `metric family '${name}': ${buckets}`;
      series = {
        labels,
        value: 0,
        owners: new Set(),
        ...(buckets ? { buckets: buckets.map((le) => ({ le, count: 0 })), count: 0 } : {}),
      };
      family.series.set(key, series);
      this.seriesCount++;
    }
    series.owners.add(owner);
    return undefined;
  }
}

/** Applies `increment`, `set` or `observe` to a series, with Triton's refusals. */
function update(name: string, kind: CustomMetricKind, s: Series, op: unknown, value: number): string | undefined {
  if (op === 'increment') {
    if (kind === 'histogram') return `metric family '${name}': a histogram does not support increment`;
    if (kind === 'counter' && value < 0) return `metric family '${name}': a counter only goes up (${value})`;
    s.value += value;
  } else if (op === 'set') {
    if (kind !== 'gauge') return `metric family '${name}': only a gauge can be set`;
    s.value = value;
  } else if (op === 'observe') {
    if (kind !== 'histogram') return `metric family '${name}': only a histogram takes observations`;
    s.value += value;
    s.count = (s.count ?? 0) + 1;
    for (const b of s.buckets ?? []) if (value <= b.le) b.count++;
  } else return `metric family '${name}': unknown operation ${JSON.stringify(String(op)).slice(0, 40)}`;
  return undefined;
}

function text(v: unknown): string | undefined {
  return typeof v === 'string' && v.length > 0 && v.length <= MAX_TEXT ? v : undefined;
}

function labelsOf(v: unknown): Record<string, string> | string {
  if (v === undefined || v === null) return {};
  if (typeof v !== 'object' || Array.isArray(v)) return 'labels must be an object of strings';
  const entries = Object.entries(v as Record<string, unknown>);
  if (entries.length > MAX_LABELS) return `at most ${MAX_LABELS} labels`;
  const out: Record<string, string> = {};
  for (const [k, val] of entries) {
    if (!LABEL_NAME.test(k) || k.startsWith('__') || k.length > MAX_TEXT)
      return `label name ${JSON.stringify(k.slice(0, 64))} is not a Prometheus label name`;
    if (typeof val !== 'string' || val.length > MAX_TEXT) return `label '${k}' must be a string`;
    out[k] = val;
  }
  return out;
}

/** The label set's identity: names sorted, as prometheus-cpp's label map orders them. */
function seriesKey(labels: Record<string, string>): string {
  return JSON.stringify(
    Object.keys(labels)
      .sort()
      .map((k) => [k, labels[k]]),
  );
}

function bucketsOf(v: unknown): number[] | string {
  if (!Array.isArray(v) || v.length > MAX_BUCKETS || v.some((b) => typeof b !== 'number' || !Number.isFinite(b)))
    return `histogram buckets must be a list of at most ${MAX_BUCKETS} finite numbers`;
  const bounds = v as number[];
  // prometheus-cpp refuses boundaries out of order when the histogram is made.
  if (bounds.some((b, i) => i > 0 && b <= bounds[i - 1]!)) return 'histogram buckets must be in increasing order';
  return bounds;
}
