// Structured mutation of JSON documents and text for the fuzz tests: deterministic given fast-check's random stream.
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The repository root and the bundled examples. */
export const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
export const EXAMPLES_DIR = join(ROOT, 'examples/model_repository');

/** Values a mutation may plant: wrong types, boundary numbers, hostile strings, deep and large structures. */
const HOSTILE: unknown[] = [
  null,
  true,
  false,
  0,
  -1,
  1.5,
  -0,
  2 ** 31,
  2 ** 53 + 2,
  -(2 ** 63),
  1e308,
  Number.MAX_SAFE_INTEGER,
  '',
  'x',
  '../../etc/passwd',
  '__proto__',
  'constructor',
  '\u0000',
  'é😀',
  '\ud800',
  'a'.repeat(10_000),
  [],
  [[]],
  {},
  { __proto__: { polluted: 1 } },
  [-1, -1, 3],
  ['1', 2],
  { x: 1, y: 'y' },
  Array.from({ length: 1000 }, (_, i) => i),
];

type Rand = Iterator<number>;
const next = (r: Rand, n: number): number => (n <= 0 ? 0 : ((r.next().value as number) ?? 0) % n);

/** Every path (array of keys) to a value inside `v`, root included. */
function paths(v: unknown, prefix: (string | number)[] = [], out: (string | number)[][] = []): (string | number)[][] {
  out.push(prefix);
  if (Array.isArray(v)) v.forEach((x, i) => paths(x, [...prefix, i], out));
  else if (v !== null && typeof v === 'object') for (const [k, x] of Object.entries(v)) paths(x, [...prefix, k], out);
  return out;
}

function getAt(v: unknown, p: (string | number)[]): unknown {
  return p.reduce<unknown>((o, k) => (o as Record<string | number, unknown>)[k], v);
}

/**
 * Applies `count` random mutations to a deep copy of `doc`: replace a value, delete a key or element,
 * duplicate an element, swap a value with another found elsewhere in the document, or add a stray key.
 * @example mutateJson(graph, fc.sample(fc.infiniteStream(fc.nat()), 1)[0], 3)
 */
export function mutateJson(doc: unknown, rand: Iterable<number>, count: number): unknown {
  const r = rand[Symbol.iterator]();
  let root: unknown = structuredClone(doc);
  for (let i = 0; i < count; i++) {
    const all = paths(root);
    const p = all[next(r, all.length)]!;
    const donor = getAt(root, all[next(r, all.length)]!);
    const planted = structuredClone(next(r, 3) === 0 ? donor : HOSTILE[next(r, HOSTILE.length)]);
    if (p.length === 0) {
      root = planted;
      continue;
    }
    const parent = getAt(root, p.slice(0, -1)) as Record<string | number, unknown> | unknown[];
    const key = p[p.length - 1]!;
    switch (next(r, 4)) {
      case 0:
        (parent as Record<string | number, unknown>)[key] = planted;
        break;
      case 1:
        if (Array.isArray(parent)) parent.splice(Number(key), 1);
        else delete (parent as Record<string, unknown>)[key];
        break;
      case 2:
        if (Array.isArray(parent)) parent.splice(Number(key), 0, structuredClone(parent[Number(key)]));
        else (parent as Record<string, unknown>)[`${key}_`] = planted;
        break;
      default:
        (parent as Record<string | number, unknown>)[key] = structuredClone(donor);
    }
  }
  return root;
}

/** Text mutations: delete, duplicate or insert a slice, flip a character, splice in a hostile token. */
export function mutateText(text: string, rand: Iterable<number>, count: number, tokens: readonly string[]): string {
  const r = rand[Symbol.iterator]();
  let s = text;
  for (let i = 0; i < count; i++) {
    const a = next(r, s.length + 1);
    const b = Math.min(s.length, a + next(r, 40));
    switch (next(r, 5)) {
      case 0:
        s = s.slice(0, a) + s.slice(b);
        break;
      case 1:
        s = s.slice(0, b) + s.slice(a, b) + s.slice(b);
        break;
      case 2:
        s = s.slice(0, a) + (tokens[next(r, tokens.length)] ?? '') + s.slice(a);
        break;
      case 3:
        s = s.slice(0, a) + String.fromCharCode(next(r, 0x3000)) + s.slice(a + 1);
        break;
      default: {
        const c = next(r, s.length + 1);
        s = s.slice(0, c) + s.slice(a, b) + s.slice(c);
      }
    }
  }
  return s;
}
