/**
 * JSON with object keys sorted and undefined members left out, so equal values give equal text
 * whatever their key order.
 * @example canonicalJson({ b: 1, a: [2] }) === canonicalJson({ a: [2], b: 1 }) // '{"a":[2],"b":1}'
 */
export function canonicalJson(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(canonicalJson).join(',')}]`;
  if (v !== null && typeof v === 'object') {
    const keys = Object.keys(v as object)
      .filter((k) => (v as Record<string, unknown>)[k] !== undefined)
      .sort();
    return `{${keys.map((k) => `${JSON.stringify(k)}:${canonicalJson((v as Record<string, unknown>)[k])}`).join(',')}}`;
  }
  return JSON.stringify(v) ?? 'null';
}
