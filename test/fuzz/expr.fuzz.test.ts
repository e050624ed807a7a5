// Adversarial fuzz of condition expressions: parse → check → evaluate → format → Python.
// Invariant: a clear error (ExprError with a column inside the text, or an Error with a message) or a result;
// never an exception from the parser/checker, never a TypeError/RangeError, and print∘parse is stable.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  checkExpression,
  evaluateExpression,
  expressionToPython,
  formatExpression,
  parseExpression,
  tensorFromJson,
  MAX_EXPRESSION_LENGTH,
  MAX_NESTING,
  type DataType,
  type PortType,
  type Tensor,
} from '../../packages/core/src/index.ts';
import { FUZZ_RUNS, expectCleanError } from '../support/fuzz.ts';

const PORTS = ['boxes', 'scores', 'flag', 'n', 'texts', 'empty'] as const;

/** Fragments of the language, plus near misses and hostile text. */
const fragment = fc.constantFrom(
  ...PORTS,
  'len',
  'size',
  'max',
  'min',
  'sum',
  'mean',
  'any',
  'all',
  '(',
  ')',
  '[',
  ']',
  '.shape',
  '.',
  ',',
  '==',
  '!=',
  '<',
  '<=',
  '>',
  '>=',
  '+',
  '-',
  '*',
  '/',
  'and',
  'or',
  'not',
  'true',
  'false',
  '0',
  '1',
  '0.5',
  '.5',
  '1e-3',
  '1e999',
  '-1',
  '2',
  ' ',
  '\t',
  '\n',
  '=',
  '!',
  '&&',
  '||',
  '**',
  '%',
  '"',
  "'",
  '\\',
  '__proto__',
  'constructor',
  'é',
  '\u0000',
  '\ud800',
  '😀',
  'NaN',
  'Infinity',
  'x'.repeat(300),
  '9'.repeat(400),
);
const soup = fc.array(fragment, { maxLength: 30 }).map((xs) => xs.join(''));
const spacedSoup = fc.array(fragment, { maxLength: 30 }).map((xs) => xs.join(' '));
/** Mostly well-formed text built from the grammar, with random spacing and redundant parentheses. */
const grammarText = fc.letrec<{ e: string }>((tie) => ({
  e: fc.oneof(
    { depthSize: 'small' },
    fc.constantFrom(...PORTS, 'true', 'false', '0', '1', '0.5', '.5', '1e-3', '1e999', '3'),
    fc
      .tuple(fc.constantFrom('len', 'size', 'max', 'min', 'sum', 'mean', 'any', 'all'), fc.constantFrom(...PORTS))
      .map(([f, p]) => `${f}(${p})`),
    fc.tuple(fc.constantFrom(...PORTS), fc.integer({ min: -3, max: 3 })).map(([p, i]) => `${p}.shape[${i}]`),
    tie('e').map((x) => `(${x})`),
    fc.tuple(fc.constantFrom('-', 'not '), tie('e')).map(([o, x]) => `${o}${x}`),
    fc
      .tuple(
        tie('e'),
        fc.constantFrom('+', '-', '*', '/', '==', '!=', '<', '<=', '>', '>=', 'and', 'or'),
        tie('e'),
        fc.constantFrom(' ', '', '  '),
      )
      .map(([a, o, b, sp]) => (/[a-z]/.test(o) ? `${a} ${o} ${b}` : `${a}${sp}${o}${sp}${b}`)),
  ),
})).e;

const anyText = fc.oneof(
  grammarText,
  soup,
  spacedSoup,
  fc.string({ maxLength: 60 }),
  fc.string({ unit: 'binary', maxLength: 40 }),
);

/** Port types the checker sees, and tensors that match them for the evaluator. */
const TYPES: Record<(typeof PORTS)[number], PortType> = {
  boxes: { datatype: 'FP32', shape: [3, 4] },
  scores: { datatype: 'FP32', shape: [3] },
  flag: { datatype: 'BOOL', shape: [1] },
  n: { datatype: 'INT64', shape: [1] },
  texts: { datatype: 'BYTES', shape: [2] },
  empty: { datatype: 'FP32', shape: [0, 4] },
};

function tensorFor(t: PortType, values: number[]): Tensor {
  const shape = t.shape ?? [];
  const count = shape.reduce((a, b) => a * b, 1);
  const integer = t.datatype === 'INT64' || t.datatype === 'BOOL';
  const flat = Array.from({ length: count }, (_, i) => {
    if (t.datatype === 'BYTES') return `s${i}`;
    const v = values[i % Math.max(1, values.length)] ?? 0;
    return integer && !Number.isFinite(v) ? 0 : v; // tensorFromJson takes KServe JSON, which has no NaN/inf integers
  });
  return tensorFromJson(t.datatype as DataType, shape, flat);
}

const finiteish = fc.oneof(
  fc.double({ noNaN: false }),
  fc.integer({ min: -5, max: 5 }),
  fc.constantFrom(0, -0, Infinity, -Infinity, NaN),
);

describe('fuzz: condition expressions', () => {
  it(`parseExpression never throws on ${FUZZ_RUNS.expr} hostile texts; errors point inside the text`, () => {
    fc.assert(
      fc.property(anyText, (src) => {
        const r = parseExpression(src);
        if (!r.ok) {
          expect(r.error.message.length).toBeGreaterThan(0);
          expect(r.error.column).toBeGreaterThanOrEqual(1);
          expect(r.error.column).toBeLessThanOrEqual(src.length + 1);
        }
      }),
      { numRuns: FUZZ_RUNS.expr },
    );
  });

  it(`parsed expressions format to text that parses to the same text (${FUZZ_RUNS.expr} cases)`, () => {
    let parsed = 0;
    fc.assert(
      fc.property(fc.oneof(grammarText, spacedSoup), (src) => {
        const r = parseExpression(src);
        if (!r.ok) return;
        parsed++;
        const text = formatExpression(r.ast);
        const again = parseExpression(text);
        expect(again.ok, `${JSON.stringify(src)} formatted as ${JSON.stringify(text)}`).toBe(true);
        if (again.ok) expect(formatExpression(again.ast)).toBe(text);
      }),
      { numRuns: FUZZ_RUNS.expr },
    );
    expect(parsed).toBeGreaterThan(FUZZ_RUNS.expr / 4); // the generator must reach the parser's success paths
  });

  it(`check never throws; well-typed expressions evaluate or fail with a plain Error, and emit Python (${FUZZ_RUNS.expr} cases)`, () => {
    fc.assert(
      fc.property(
        fc.oneof(grammarText, spacedSoup),
        fc.array(finiteish, { minLength: 1, maxLength: 12 }),
        (src, values) => {
          const r = parseExpression(src);
          if (!r.ok) return;
          const errors = checkExpression(r.ast, TYPES);
          for (const e of errors) {
            expect(e.message.length).toBeGreaterThan(0);
            expect(e.column).toBeGreaterThanOrEqual(1);
          }
          const tensors = Object.fromEntries(Object.entries(TYPES).map(([k, t]) => [k, tensorFor(t, values)]));
          try {
            const v = evaluateExpression(r.ast, tensors);
            expect(['boolean', 'number']).toContain(typeof v);
          } catch (e) {
            expectCleanError(e);
            // A clean check promises the evaluator nothing about values, only about types: never a type mismatch.
            if (errors.length === 0)
              expect((e as Error).message).not.toMatch(/needs (numbers|true\/false)|cannot compare a boolean/);
          }
          if (errors.length === 0)
            expect(typeof expressionToPython(r.ast, (p) => `t[${JSON.stringify(p)}]`)).toBe('string');
        },
      ),
      { numRuns: FUZZ_RUNS.expr },
    );
  });

  it('deep nesting and long inputs get a clear limit error, not a stack overflow', () => {
    const cases = [
      '('.repeat(MAX_NESTING + 1) + 'n' + ')'.repeat(MAX_NESTING + 1),
      '('.repeat(100_000),
      'not '.repeat(50_000) + 'flag',
      '-'.repeat(50_000) + '1',
      Array.from({ length: 3000 }, () => 'n').join(' + '),
      Array.from({ length: 3000 }, () => 'flag').join(' and '),
      'n'.repeat(MAX_EXPRESSION_LENGTH + 1),
      'len('.repeat(20_000),
    ];
    for (const src of cases) {
      const r = parseExpression(src);
      expect(r.ok, src.slice(0, 40)).toBe(false);
      if (!r.ok) expect(r.error.message).toMatch(/\S/);
    }
  });

  it(`evaluating against hostile tensors (wrong sizes, missing ports, prototype names) fails with a plain Error (${FUZZ_RUNS.expr} cases)`, () => {
    const srcs = [
      'max(scores) > 0.5',
      'len(boxes) == 0',
      'flag and n > 1',
      'boxes.shape[-1] == 4',
      'mean(__proto__) > 0',
      'constructor == 1',
      'size(texts) > 1',
    ];
    fc.assert(
      fc.property(
        fc.constantFrom(...srcs),
        fc.dictionary(
          fc.constantFrom(...PORTS, '__proto__', 'constructor', 'toString'),
          fc.record({
            datatype: fc.constantFrom<DataType>('FP32', 'BOOL', 'INT64', 'BYTES', 'FP16', 'UINT8'),
            shape: fc.array(fc.nat({ max: 3 }), { maxLength: 3 }),
            n: fc.nat({ max: 8 }),
          }),
          { maxKeys: 4 },
        ),
        (src, spec) => {
          const r = parseExpression(src);
          expect(r.ok).toBe(true);
          if (!r.ok) return;
          const tensors: Record<string, Tensor> = {};
          for (const [k, s] of Object.entries(spec)) {
            const data = tensorFromJson(
              s.datatype,
              [s.n],
              Array.from({ length: s.n }, (_, i) => (s.datatype === 'BYTES' ? 'b' : i)),
            );
            Object.defineProperty(tensors, k, { value: { ...data, shape: s.shape }, enumerable: true });
          }
          try {
            const v = evaluateExpression(r.ast, tensors);
            expect(['boolean', 'number']).toContain(typeof v);
          } catch (e) {
            expectCleanError(e);
          }
        },
      ),
      { numRuns: FUZZ_RUNS.expr },
    );
  });
});
