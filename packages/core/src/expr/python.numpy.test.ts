import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { DATA_TYPES, type DataType } from '../tensor/dtype.ts';
import { elementCount, type Tensor, type TensorData } from '../tensor/tensor.ts';
import type { Expr, ExprFunction } from './ast.ts';
import { evaluateExpression } from './evaluate.ts';
import { formatExpression } from './format.ts';
import { MAX_AST_DEPTH, MAX_NESTING, parseExpression } from './parser.ts';
import { expressionToPython } from './python.ts';

// core's tsconfig has no Node types (it must stay pure), so this test types the one Node API it needs itself.
type SpawnSync = (
  cmd: string,
  args: string[],
  options: { input: string; encoding: 'utf8'; maxBuffer: number },
) => { status: number | null; stdout: string; stderr: string; error?: Error };
const { spawnSync } = (await import('node:child_process' as string)) as { spawnSync: SpawnSync };

// Runs every case in ONE python3 process: builds the numpy arrays, evals the emitted code, reports the result.
const HARNESS = String.raw`
import json, sys, warnings
import numpy as np
warnings.simplefilter('ignore')
KINDS = {'BOOL': np.bool_, 'UINT8': np.uint8, 'UINT16': np.uint16, 'UINT32': np.uint32, 'UINT64': np.uint64,
         'INT8': np.int8, 'INT16': np.int16, 'INT32': np.int32, 'INT64': np.int64, 'FP32': np.float32, 'FP64': np.float64}
def array(t):
    d, v = t['datatype'], t['data']
    if d == 'FP16': a = np.array(v, dtype=np.uint16).view(np.float16)
    elif d == 'BF16': a = (np.array(v, dtype=np.uint32) << 16).view(np.float32)
    elif d == 'BYTES': a = np.array([s.encode() for s in v] + [None], dtype=np.object_)[:-1]
    elif d in ('FP32', 'FP64'): a = np.array([float(x) for x in v], dtype=KINDS[d])
    else: a = np.array([int(x) for x in v], dtype=KINDS[d])
    return a.reshape(t['shape'])
out = []
for case in json.load(sys.stdin):
    env = {'np': np}
    for name, t in case['tensors'].items(): env['v_' + name] = array(t)
    try:
        r = eval(case['code'], env)
        out.append(r if type(r) is bool else 'not a bool: ' + repr(r))
    except Exception as e:
        out.append('error: ' + type(e).__name__)
print(json.dumps(out))
`;

function floatText(v: number): string {
  if (Number.isNaN(v)) return 'nan';
  if (Object.is(v, -0)) return '-0.0';
  return v === Infinity ? 'inf' : v === -Infinity ? '-inf' : String(v);
}

function tensorJson(t: Tensor): unknown {
  const d = t.data;
  const data = Array.isArray(d)
    ? d
    : t.datatype === 'FP32' || t.datatype === 'FP64'
      ? Array.from(d as Float64Array, floatText)
      : Array.from(d as ArrayLike<number | bigint>, (x) => String(x));
  return { datatype: t.datatype, shape: t.shape, data };
}

interface Case {
  tensors: Record<string, Tensor>;
  ast: Expr;
}

/** Runs the cases under python3 + numpy; each result is a boolean or an 'error: …' string. */
function runPython(cases: Case[]): (boolean | string)[] {
  const input = JSON.stringify(
    cases.map((c) => ({
      tensors: Object.fromEntries(Object.entries(c.tensors).map(([k, t]) => [k, tensorJson(t)])),
      code: expressionToPython(c.ast, (p) => `v_${p}`),
    })),
  );
  const r = spawnSync('python3', ['-c', HARNESS], { input, encoding: 'utf8', maxBuffer: 64 << 20 });
  if (r.status !== 0) throw new Error(`python3 failed: ${r.stderr || String(r.error)}`);
  return JSON.parse(r.stdout) as (boolean | string)[];
}

function jsResult(c: Case): boolean | string {
  try {
    const v = evaluateExpression(c.ast, c.tensors);
    return typeof v === 'boolean' ? v : `not a bool: ${v}`;
  } catch {
    return 'error';
  }
}

// ---- random tensors -------------------------------------------------------------------------------------
const at = { start: 0, end: 0 };

function dataArb(dt: DataType, n: number): fc.Arbitrary<TensorData> {
  const ints = (min: number, max: number) =>
    fc.array(
      fc.oneof(
        fc.integer({ min: -2, max: 3 }).filter((x) => x >= min),
        fc.integer({ min, max }),
      ),
      { minLength: n, maxLength: n },
    );
  const big = (min: bigint, max: bigint) =>
    fc.array(fc.oneof(fc.bigInt({ min: 0n, max: 3n }), fc.bigInt({ min, max })), { minLength: n, maxLength: n });
  const special = fc.constantFrom(0, -0, 1, -1, 0.5, NaN, Infinity, -Infinity);
  const moderate = fc.double({ min: -100, max: 100, noNaN: true }); // sums whose rounding depends on the order
  switch (dt) {
    case 'BOOL':
      return fc.array(fc.integer({ min: 0, max: 1 }), { minLength: n, maxLength: n }).map((a) => Uint8Array.from(a));
    case 'UINT8':
      return ints(0, 255).map((a) => Uint8Array.from(a));
    case 'INT8':
      return ints(-128, 127).map((a) => Int8Array.from(a));
    case 'UINT16':
      return ints(0, 65535).map((a) => Uint16Array.from(a));
    case 'INT16':
      return ints(-32768, 32767).map((a) => Int16Array.from(a));
    case 'UINT32':
      return ints(0, 2 ** 32 - 1).map((a) => Uint32Array.from(a));
    case 'INT32':
      return ints(-(2 ** 31), 2 ** 31 - 1).map((a) => Int32Array.from(a));
    case 'INT64':
      return big(-(2n ** 63n), 2n ** 63n - 1n).map((a) => BigInt64Array.from(a));
    case 'UINT64':
      return big(0n, 2n ** 64n - 1n).map((a) => BigUint64Array.from(a));
    case 'FP16':
    case 'BF16':
      return fc
        .array(fc.integer({ min: 0, max: 0xffff }), { minLength: n, maxLength: n })
        .map((a) => Uint16Array.from(a));
    case 'FP32':
      return fc
        .array(fc.oneof(special, moderate.map(Math.fround), moderate.map(Math.fround), fc.float()), {
          minLength: n,
          maxLength: n,
        })
        .map((a) => Float32Array.from(a));
    case 'FP64':
      return fc
        .array(fc.oneof(special, moderate, moderate, fc.double()), { minLength: n, maxLength: n })
        .map((a) => Float64Array.from(a));
    case 'BYTES':
      return fc.array(fc.string({ maxLength: 3 }), { minLength: n, maxLength: n });
  }
}

const tensorArb: fc.Arbitrary<Tensor> = fc
  .tuple(
    fc.constantFrom(...DATA_TYPES),
    fc.oneof(
      fc.array(fc.integer({ min: 0, max: 3 }), { maxLength: 3 }),
      fc.array(fc.integer({ min: 8, max: 40 }), { minLength: 1, maxLength: 1 }), // long enough for numpy's pairwise sum to differ
    ),
  )
  .chain(([datatype, shape]) =>
    dataArb(datatype, elementCount(shape)).map((data): Tensor => ({ datatype, shape, data })),
  );

// ---- random well-typed expressions over given tensors ------------------------------------------------------
const call = (fn: ExprFunction, name: string): Expr => ({
  type: 'call',
  fn,
  args: [{ type: 'ref', name, ...at }],
  ...at,
});
const ref = (name: string): Expr => ({ type: 'ref', name, ...at });

function leaves(tensors: Record<string, Tensor>): { num: fc.Arbitrary<Expr>[]; bool: fc.Arbitrary<Expr>[] } {
  const num: fc.Arbitrary<Expr>[] = [
    fc
      .oneof(fc.integer({ min: 0, max: 4 }), fc.double({ min: 0, max: 10, noNaN: true }), fc.constant(Infinity))
      .filter((v) => !Object.is(v, -0))
      .map((value): Expr => ({ type: 'number', value, ...at })),
  ];
  const bool: fc.Arbitrary<Expr>[] = [fc.boolean().map((value): Expr => ({ type: 'bool', value, ...at }))];
  for (const [name, t] of Object.entries(tensors)) {
    const rank = t.shape.length;
    num.push(fc.constant(call('size', name)));
    if (rank > 0) {
      num.push(fc.constant(call('len', name)));
      num.push(
        fc.integer({ min: -rank, max: rank - 1 }).map((index): Expr => ({
          type: 'shape',
          tensor: { type: 'ref', name, ...at },
          index,
          indexStart: 0,
          indexEnd: 0,
          ...at,
        })),
      );
    }
    if (t.datatype === 'BYTES') continue;
    num.push(fc.constantFrom<ExprFunction>('max', 'min', 'sum', 'mean').map((fn) => call(fn, name)));
    bool.push(fc.constantFrom<ExprFunction>('any', 'all').map((fn) => call(fn, name)));
    if (t.data.length === 1) (t.datatype === 'BOOL' ? bool : num).push(fc.constant(ref(name)));
  }
  return { num, bool };
}

function exprArb(tensors: Record<string, Tensor>): fc.Arbitrary<Expr> {
  const { num, bool } = leaves(tensors);
  const tree = fc.letrec<{ num: Expr; bool: Expr }>((tie) => ({
    num: fc.oneof(
      { depthSize: 'small', withCrossShrink: true },
      fc.oneof(...num),
      tie('num').map((operand): Expr => ({ type: 'unary', op: '-', operand, ...at })),
      fc
        .tuple(fc.constantFrom('+' as const, '-' as const, '*' as const, '/' as const), tie('num'), tie('num'))
        .map(([op, left, right]): Expr => ({ type: 'binary', op, left, right, opStart: 0, ...at })),
    ),
    bool: fc.oneof(
      { depthSize: 'small', withCrossShrink: true },
      fc.oneof(...bool),
      tie('bool').map((operand): Expr => ({ type: 'unary', op: 'not', operand, ...at })),
      fc
        .tuple(fc.constantFrom('and' as const, 'or' as const), tie('bool'), tie('bool'))
        .map(([op, left, right]): Expr => ({ type: 'logical', op, left, right, opStart: 0, ...at })),
      fc
        .tuple(
          fc.constantFrom('==' as const, '!=' as const, '<' as const, '<=' as const, '>' as const, '>=' as const),
          tie('num'),
          tie('num'),
        )
        .map(([op, left, right]): Expr => ({ type: 'compare', op, left, right, opStart: 0, ...at })),
      fc
        .tuple(fc.constantFrom('==' as const, '!=' as const), tie('bool'), tie('bool'))
        .map(([op, left, right]): Expr => ({ type: 'compare', op, left, right, opStart: 0, ...at })),
    ),
  }));
  return fc.oneof(
    tree.bool,
    tree.num.map((e) => exactly(e, tensors)),
  );
}

/** `e == <its value per the evaluator>` (or `e != e` for NaN): checks numeric results bit for bit, not just a verdict. */
function exactly(e: Expr, tensors: Record<string, Tensor>): Expr {
  const v = evaluateExpression(e, tensors) as number;
  if (Number.isNaN(v)) return { type: 'compare', op: '!=', left: e, right: e, opStart: 0, ...at };
  const lit: Expr = { type: 'number', value: Math.abs(v), ...at };
  const right: Expr = v < 0 ? { type: 'unary', op: '-', operand: lit, ...at } : lit;
  return { type: 'compare', op: '==', left: e, right, opStart: 0, ...at };
}

const caseArb: fc.Arbitrary<Case> = fc
  .dictionary(fc.constantFrom('a', 'b', 'c', 'd'), tensorArb, { minKeys: 1, maxKeys: 4 })
  .chain((tensors) => exprArb(tensors).map((ast) => ({ tensors, ast })));

describe('expressionToPython agrees with evaluateExpression under numpy', () => {
  it('on random well-typed expressions over random tensors', () => {
    const cases = fc.sample(caseArb, { numRuns: 600, seed: 20240611 });
    const py = runPython(cases);
    const mismatches = cases.flatMap((c, i) => {
      const js = jsResult(c);
      return js === py[i]
        ? []
        : [
            {
              expr: formatExpression(c.ast),
              js,
              py: py[i],
              tensors: JSON.stringify(Object.values(c.tensors).map(tensorJson)),
            },
          ];
    });
    expect(mismatches.slice(0, 3)).toEqual([]);
    expect(cases.filter((c) => jsResult(c) === true).length).toBeGreaterThan(100);
    expect(cases.filter((c) => jsResult(c) === false).length).toBeGreaterThan(100);
  });

  it('on hand-picked edge cases, runtime errors included', () => {
    const tensors: Record<string, Tensor> = {
      e: { datatype: 'FP32', shape: [0], data: new Float32Array(0) },
      s: { datatype: 'INT64', shape: [], data: new BigInt64Array([2n ** 53n + 1n]) },
      m: { datatype: 'FP32', shape: [2, 2], data: new Float32Array([1, 2, 3, 4]) },
      w: { datatype: 'BYTES', shape: [2], data: ['x', 'yz'] },
      f: { datatype: 'BOOL', shape: [1, 1], data: new Uint8Array([1]) },
    };
    const sources = [
      'max(e) == -1e999',
      'min(e) == 1e999',
      'sum(e) == 0',
      'mean(e) != mean(e)',
      'not any(e) and all(e)',
      's == 9007199254740992',
      'not (s > 9007199254740992)',
      '1 / 0 == 1e999',
      '0 / 0 != 0 / 0',
      '-1 / (0 * -1) == 1e999',
      'len(w) == 2 and size(w) == 2 and w.shape[-1] == 2',
      'f and f == true',
      'mean(m) == 2.5 and m.shape[-2] == 2',
      '1e308 * 10 == 1e999',
      '0.1 + 0.2 != 0.3',
      'not (len(e) > 0 and e > 0)',
      'len(e) == 0 or e > 0',
      // Runtime errors: both sides must fail.
      'len(s) > 0',
      'm > 0',
      'm.shape[2] == 1',
      'm.shape[-3] == 1',
      'e > 0',
    ];
    const cases = sources.map((src): Case => {
      const r = parseExpression(src);
      if (!r.ok) throw new Error(`${src}: ${r.error.message}`);
      return { tensors, ast: r.ast };
    });
    const py = runPython(cases);
    const got = cases.map((c, i) => [sources[i], jsResult(c), py[i]]);
    expect(got.map(([src, js]) => [src, js])).toEqual(sources.map((src, i) => [src, i < 17 ? true : 'error']));
    expect(got.map(([src, , p]) => [src, typeof p === 'string' ? 'error' : p])).toEqual(
      sources.map((src, i) => [src, i < 17 ? true : 'error']),
    );
  });

  it('sums long tensors left to right, bit for bit (numpy alone would sum pairwise)', () => {
    const values = Array.from({ length: 40 }, (_, i) => Math.sin(i + 1) * 10 ** ((i % 7) - 3));
    const tensors: Record<string, Tensor> = {
      p: { datatype: 'FP64', shape: [40], data: Float64Array.from(values) },
      q: { datatype: 'FP32', shape: [4, 10], data: Float32Array.from(values) },
    };
    const cases = ['sum(p)', 'mean(p)', 'sum(q)', 'mean(q)'].map((src): Case => {
      const r = parseExpression(src);
      if (!r.ok) throw new Error(src);
      return { tensors, ast: exactly(r.ast, tensors) };
    });
    expect(cases.map(jsResult)).toEqual([true, true, true, true]);
    expect(runPython(cases)).toEqual([true, true, true, true]);
  });

  it('compiles the deepest expressions the parser accepts', () => {
    const tensors: Record<string, Tensor> = { a: { datatype: 'FP64', shape: [1], data: new Float64Array([1]) } };
    const sources = [
      `${'(a - '.repeat(MAX_NESTING - 1)}a${')'.repeat(MAX_NESTING - 1)} == 0`,
      `${'-'.repeat(MAX_NESTING)}a == 1`,
      `${'not '.repeat(MAX_NESTING - 1)}(a > 0)`,
      `${Array(MAX_AST_DEPTH - 1)
        .fill('a')
        .join(' / ')} == 1`,
      Array(MAX_AST_DEPTH - 1)
        .fill('a > 0')
        .join(' and '),
    ];
    const cases = sources.map((src): Case => {
      const r = parseExpression(src);
      if (!r.ok) throw new Error(`${src.slice(0, 20)}: ${r.error.message}`);
      return { tensors, ast: r.ast };
    });
    expect(cases.map(jsResult)).toEqual([true, true, false, true, true]);
    expect(runPython(cases)).toEqual([true, true, false, true, true]);
  });
});
