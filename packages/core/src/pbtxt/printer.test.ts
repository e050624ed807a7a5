import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { ModelConfig } from './modelConfig.ts';
import { parsePbtxt, parsePbtxtLenient } from './parser.ts';
import { printPbtxt, quoteString } from './printer.ts';
import { ENUMS } from './protoEnums.ts';
import { messageDef, type FieldDef, type FieldType, type ScalarKind } from './schema.ts';

const text = fc
  .string({ unit: 'binary', maxLength: 12 })
  .filter((s) => !/[\ud800-\udfff]/.test(s.replace(/[\ud800-\udbff][\udc00-\udfff]/g, '')));
const name = fc.oneof(text, fc.constantFrom('INPUT0', 'x', 'é', 'a b', '"q"', 'back\\slash', 'line\nbreak'));

function scalarArb(s: ScalarKind): fc.Arbitrary<unknown> {
  switch (s) {
    case 'int32':
      return fc.integer({ min: -(2 ** 31), max: 2 ** 31 - 1 });
    case 'uint32':
      return fc.integer({ min: 0, max: 2 ** 32 - 1 });
    case 'int64':
      return fc.oneof(fc.integer({ min: -5, max: 100 }), fc.maxSafeInteger(), fc.constant(Number.MIN_SAFE_INTEGER));
    case 'uint64':
      return fc.oneof(fc.integer({ min: 0, max: 100 }), fc.maxSafeNat());
    case 'float':
    case 'double':
      return fc.double();
    case 'bool':
      return fc.boolean();
    default:
      return name;
  }
}

function valueArb(t: FieldType, depth: number): fc.Arbitrary<unknown> {
  if (t.kind === 'scalar') return scalarArb(t.scalar);
  if (t.kind === 'enum') return fc.constantFrom(...(ENUMS[t.enum] ?? []));
  if (t.kind === 'message') return messageArb(t.message, depth + 1);
  const key = t.key === 'string' ? name : scalarArb(t.key).map(String);
  return fc.dictionary(key, valueArb(t.value, depth), { maxKeys: 3 });
}

const cache = new Map<string, fc.Arbitrary<Record<string, unknown>>>();

/** A random, schema-valid message: any subset of fields, at most one member per oneof. */
function messageArb(message: string, depth = 0): fc.Arbitrary<Record<string, unknown>> {
  const hit = cache.get(message);
  if (hit) return hit;
  const def = messageDef(message);
  const fieldArb = (f: FieldDef): fc.Arbitrary<unknown> =>
    f.repeated ? fc.array(valueArb(f.type, depth), { maxLength: depth > 2 ? 1 : 3 }) : valueArb(f.type, depth);
  const record: Record<string, fc.Arbitrary<unknown>> = {};
  for (const f of def.fields) record[f.name] = fieldArb(f);
  const arb = fc.record(record, { requiredKeys: [] }).map((obj) => {
    const seen = new Set<string>();
    for (const f of def.fields) {
      if (!f.oneof || !(f.name in obj)) continue;
      if (seen.has(f.oneof)) delete obj[f.name];
      seen.add(f.oneof);
    }
    return obj;
  });
  cache.set(message, arb);
  return arb;
}

const configArb = messageArb('ModelConfig') as fc.Arbitrary<ModelConfig>;

function parseOk(s: string): ModelConfig {
  const r = parsePbtxt(s);
  if (!r.ok) throw new Error(`${r.error.line}:${r.error.column} ${r.error.message}\n${s}`);
  return r.config;
}

/** Rewrites printed text into an equivalent spelling: comments, split lists, separators, odd whitespace. */
function variant(printed: string, seed: number[]): string {
  let k = 0;
  const pick = (n: number): number => (seed[k++ % seed.length] ?? 0) % n;
  return printed
    .split('\n')
    .map((line) => {
      let l = line;
      const list = /^(\s*)(\w+): \[ ([-\w.]+(?:, [-\w.]+)*) \]$/.exec(l);
      if (list && pick(2))
        l = list[3]!
          .split(', ')
          .map((v) => `${list[1]}${list[2]}: ${v}`)
          .join(' ');
      if (/^\s*\w+: [^{[]/.test(l) && pick(3) === 0) l += pick(2) ? ';' : ',';
      if (/^\s*\w+: \{/.test(l) && pick(2)) l = l.replace(': {', ' {');
      l = l.replace(/^\s+/, (ws) => [ws, '\t', ' ', ws + ws][pick(4)]!);
      if (pick(4) === 0) l += ` # note ${pick(100)} "quoted" { [`;
      return l;
    })
    .join(pick(2) ? '\n' : '\n\n');
}

describe('printPbtxt', () => {
  it('prints in Triton-example style', () => {
    const config: ModelConfig = {
      output: [{ name: 'y', data_type: 'TYPE_FP32', dims: [10] }],
      instance_group: [{ kind: 'KIND_CPU', count: 2 }],
      name: 'm',
      backend: 'onnxruntime',
      platform: 'onnxruntime_onnx',
      max_batch_size: 8,
      input: [
        { name: 'x', data_type: 'TYPE_FP32', dims: [3, -1], reshape: { shape: [3, 1, -1] } },
        { name: 'z', data_type: 'TYPE_STRING', dims: [1], optional: true },
      ],
      parameters: { z: { string_value: 'last' }, a: { string_value: 'say "hi"\n' } },
      dynamic_batching: {},
      ensemble_future: { opt: 'FAST' },
    };
    expect(printPbtxt(config)).toBe(`name: "m"
platform: "onnxruntime_onnx"
backend: "onnxruntime"
max_batch_size: 8
input [
  {
    name: "x"
    data_type: TYPE_FP32
    dims: [ 3, -1 ]
    reshape: { shape: [ 3, 1, -1 ] }
  },
  {
    name: "z"
    data_type: TYPE_STRING
    dims: [ 1 ]
    optional: true
  }
]
output [
  {
    name: "y"
    data_type: TYPE_FP32
    dims: [ 10 ]
  }
]
instance_group [
  {
    count: 2
    kind: KIND_CPU
  }
]
dynamic_batching { }
parameters {
  key: "a"
  value: { string_value: "say \\"hi\\"\\n" }
}
parameters {
  key: "z"
  value: { string_value: "last" }
}
ensemble_future {
  opt: FAST
}
`);
  });

  it('prints ensemble steps with inline string maps', () => {
    const out = printPbtxt({
      name: 'e',
      platform: 'ensemble',
      ensemble_scheduling: {
        step: [{ model_name: 'a', model_version: -1, input_map: { b: 'B', a: 'A' }, output_map: { o: 'O' } }],
      },
    });
    expect(out).toContain(`ensemble_scheduling {
  step [
    {
      model_name: "a"
      model_version: -1
      input_map { key: "a" value: "A" }
      input_map { key: "b" value: "B" }
      output_map { key: "o" value: "O" }
    }
  ]
}
`);
  });

  it('escapes strings so they reparse exactly and keeps non-ASCII as UTF-8', () => {
    expect(quoteString('a"b\\c\nd\u0001é')).toBe('"a\\"b\\\\c\\nd\\001é"');
  });

  it('prints floats that reparse to the same value', () => {
    const c = { sequence_batching: { direct: { minimum_slot_utilization: 0.1 + 0.2 } } } as ModelConfig;
    expect(parseOk(printPbtxt(c))).toEqual(c);
  });

  it('ends with a newline even when empty', () => expect(printPbtxt({})).toBe('\n'));
});

describe('round-trip properties', () => {
  it('print → parse gives back the same config', () => {
    fc.assert(
      fc.property(configArb, (config) => {
        expect(parseOk(printPbtxt(config))).toEqual(config);
      }),
      { numRuns: 2000 },
    );
  });

  it('printing is deterministic and stable under reparse', () => {
    fc.assert(
      fc.property(configArb, (config) => {
        const once = printPbtxt(config);
        expect(printPbtxt(parseOk(once))).toBe(once);
      }),
      { numRuns: 500 },
    );
  });

  it('text variants (comments, split lists, separators, whitespace) parse to the same config', () => {
    fc.assert(
      fc.property(configArb, fc.array(fc.nat(), { minLength: 1, maxLength: 16 }), (config, seed) => {
        expect(parseOk(variant(printPbtxt(config), seed))).toEqual(config);
      }),
      { numRuns: 1000 },
    );
  });

  it('hostile text never throws: always a config or a positioned error', () => {
    const token = fc.constantFrom(
      '{',
      '}',
      '[',
      ']',
      '<',
      '>',
      ':',
      ',',
      ';',
      '"',
      "'",
      '#',
      '\n',
      ' ',
      '-',
      '\\',
      'name',
      'input',
      'dims',
      'parameters',
      'key',
      'value',
      'string_value',
      'data_type',
      'TYPE_FP32',
      'x',
      '1',
      '0x',
      '1e',
      '.5',
      'inf',
      'true',
      '"s"',
      '\\x',
      '\\777',
      'dynamic_batching',
      'sequence_batching',
      'priority_queue_policy',
    );
    const hostile = fc.oneof(
      fc.string({ maxLength: 60 }),
      fc.array(token, { maxLength: 60 }).map((t) => t.join('')),
    );
    fc.assert(
      fc.property(hostile, fc.boolean(), (s, lenient) => {
        const r = lenient ? parsePbtxtLenient(s) : parsePbtxt(s);
        if (!r.ok) {
          expect(r.error.line).toBeGreaterThanOrEqual(1);
          expect(r.error.column).toBeGreaterThanOrEqual(1);
          expect(r.error.message.length).toBeGreaterThan(0);
        } else {
          expect(parsePbtxtLenient(printPbtxt(r.config)).ok).toBe(true);
        }
      }),
      { numRuns: 5000 },
    );
  });
});
