// Runtime shape checks for JSON responses, tied to their TypeScript types: a `Shape<T>` must name every key of
// `T` with the JSON kind of its value (`'string'`, `'number'`, …, with `?` when the key may be absent), so a type
// that gains, loses or retypes a field no longer compiles against its shape, and a response that differs from
// its shape fails at run time. A value typed `unknown` is `'any'`: any kind passes.

type JsonKind<V> = unknown extends V
  ? 'any'
  : V extends string
    ? 'string'
    : V extends number
      ? 'number'
      : V extends boolean
        ? 'boolean'
        : V extends readonly unknown[]
          ? 'array'
          : V extends null
            ? 'null'
            : 'object';

/** Every key of `T` with the JSON kind of its value; optional keys end in `?`. */
export type Shape<T> = {
  // `{}` is meant: a key is optional exactly when the empty object satisfies `Pick<T, K>`.
  // eslint-disable-next-line @typescript-eslint/no-empty-object-type
  readonly [K in keyof T]-?: {} extends Pick<T, K> ? `${JsonKind<Exclude<T[K], undefined>>}?` : JsonKind<T[K]>;
};

function kindOf(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  return typeof value;
}

/**
 * What is wrong with `value` against `shape`, each problem naming its place (`where.key`): a required key that
 * is missing, a key the type does not have, a value of another JSON kind. Empty when it matches.
 * @example shapeProblems({ ok: true, extra: 1 }, { ok: 'boolean' }, 'GET /api/health') // ['GET /api/health.extra: not in the type']
 */
export function shapeProblems(value: unknown, shape: Readonly<Record<string, string>>, where: string): string[] {
  if (kindOf(value) !== 'object') return [`${where}: expected an object, got ${kindOf(value)}`];
  const record = value as Record<string, unknown>;
  const problems: string[] = [];
  for (const [key, expected] of Object.entries(shape)) {
    const optional = expected.endsWith('?');
    const kind = optional ? expected.slice(0, -1) : expected;
    if (!Object.hasOwn(record, key)) {
      if (!optional) problems.push(`${where}.${key}: missing`);
      continue;
    }
    const actual = kindOf(record[key]);
    if (kind !== 'any' && actual !== kind) problems.push(`${where}.${key}: expected ${kind}, got ${actual}`);
  }
  for (const key of Object.keys(record))
    if (!Object.hasOwn(shape, key)) problems.push(`${where}.${key}: not in the type`);
  return problems;
}

/**
 * `shapeProblems` for every element of an array (or every value of a record), placed as `where[i]` / `where.key`.
 * @example eachShapeProblems(body.graphs, GRAPH_LISTING, 'GET /api/graphs .graphs')
 */
export function eachShapeProblems(values: unknown, shape: Readonly<Record<string, string>>, where: string): string[] {
  if (Array.isArray(values)) return values.flatMap((v, i) => shapeProblems(v, shape, `${where}[${i}]`));
  if (kindOf(values) !== 'object') return [`${where}: expected an array or a record, got ${kindOf(values)}`];
  return Object.entries(values as Record<string, unknown>).flatMap(([k, v]) =>
    shapeProblems(v, shape, `${where}.${k}`),
  );
}
