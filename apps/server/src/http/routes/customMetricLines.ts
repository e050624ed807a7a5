import type { CustomFamily } from '../../engine/customMetrics.ts';

// Prometheus's text format (0.0.4), as prometheus-cpp writes Triton's registry: HELP and TYPE, then a line per
// series with its labels in name order; a histogram's series as cumulative `_bucket` lines, `le="+Inf"`, `_sum`
// and `_count`.

/** A label value as the text format escapes it (backslash, quote, newline). */
export const escLabel = (v: string) => v.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, '\\n');
const escHelp = (v: string) => v.replace(/\\/g, '\\\\').replace(/\n/g, '\\n');

function labelText(labels: Record<string, string>, extra?: [string, string]): string {
  const pairs = Object.keys(labels)
    .sort()
    .map((k) => `${k}="${escLabel(labels[k]!)}"`);
  if (extra) pairs.push(`${extra[0]}="${extra[1]}"`);
  return pairs.length ? `{${pairs.join(',')}}` : '';
}

/**
 * The exposition lines of the Python models' own metric families; a family without a series is left out.
 * @example customMetricLines(engine.metrics().custom ?? []).join('\n')
 */
export function customMetricLines(families: readonly CustomFamily[]): string[] {
  const lines: string[] = [];
  for (const f of families) {
    if (f.series.length === 0) continue;
    lines.push(`# HELP ${f.name} ${escHelp(f.description)}`, `# TYPE ${f.name} ${f.kind}`);
    for (const s of f.series) {
      if (f.kind !== 'histogram') {
        lines.push(`${f.name}${labelText(s.labels)} ${s.value}`);
        continue;
      }
      for (const b of s.buckets ?? [])
        lines.push(`${f.name}_bucket${labelText(s.labels, ['le', String(b.le)])} ${b.count}`);
      lines.push(
        `${f.name}_bucket${labelText(s.labels, ['le', '+Inf'])} ${s.count ?? 0}`,
        `${f.name}_sum${labelText(s.labels)} ${s.value}`,
        `${f.name}_count${labelText(s.labels)} ${s.count ?? 0}`,
      );
    }
  }
  return lines;
}
