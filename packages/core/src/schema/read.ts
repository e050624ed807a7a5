// Structural reading of untrusted JSON: every field typed, errors name the path (`nodes[3].params.count`).
export type Obj = Record<string, unknown>;

/** A structural error; `migrate` turns it into `{ ok: false, error }`. */
export class SchemaError extends Error {}

export const fail = (path: string, message: string): never => {
  throw new SchemaError(`${path} ${message}`);
};

export const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

export function obj(v: unknown, path: string): Obj {
  return isObj(v) ? v : fail(path, 'must be an object');
}

export function str(v: unknown, path: string, nonEmpty = false): string {
  if (typeof v !== 'string') return fail(path, 'must be a string');
  return nonEmpty && v.length === 0 ? fail(path, 'must not be empty') : v;
}

export function num(v: unknown, path: string): number {
  return typeof v === 'number' && Number.isFinite(v) ? v : fail(path, 'must be a finite number');
}

export function int(v: unknown, path: string, min?: number): number {
  if (typeof v !== 'number' || !Number.isInteger(v)) return fail(path, 'must be an integer');
  return min !== undefined && v < min ? fail(path, `must be ≥ ${min}`) : v;
}

export function bool(v: unknown, path: string): boolean {
  return typeof v === 'boolean' ? v : fail(path, 'must be true or false');
}

export function oneOf<T extends string>(v: unknown, path: string, options: readonly T[]): T {
  return typeof v === 'string' && (options as readonly string[]).includes(v)
    ? (v as T)
    : fail(path, `must be one of ${options.join(', ')}`);
}

export function arr<T>(v: unknown, path: string, item: (x: unknown, p: string) => T): T[] {
  if (!Array.isArray(v)) return fail(path, 'must be an array');
  return v.map((x, i) => item(x, `${path}[${i}]`));
}

export function record<T>(v: unknown, path: string, item: (x: unknown, p: string) => T): Record<string, T> {
  const o = obj(v, path);
  return Object.fromEntries(Object.entries(o).map(([k, x]) => [k, item(x, `${path}.${k}`)]));
}

/** Reads `o[key]` with `f` when present (not undefined); returns `{}` or `{ [key]: value }` to spread. */
export function opt<K extends string, T>(
  o: Obj,
  key: K,
  path: string,
  f: (x: unknown, p: string) => T,
): { [P in K]?: T } {
  return o[key] === undefined ? {} : ({ [key]: f(o[key], `${path}.${key}`) } as { [P in K]?: T });
}

/** A dims array: each dim `-1` or a positive integer. */
export function dims(v: unknown, path: string): number[] {
  return arr(v, path, (x, p) => {
    const d = int(x, p);
    return d === -1 || d >= 1 ? d : fail(p, 'must be -1 or a positive integer');
  });
}

/** A scalar param value: number, string or boolean. */
export function scalar(v: unknown, path: string): number | string | boolean {
  if (typeof v === 'string' || typeof v === 'boolean') return v;
  return num(v, path);
}
