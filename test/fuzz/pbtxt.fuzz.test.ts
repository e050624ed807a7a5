// Adversarial fuzz of config.pbtxt text on top of the parser's own property tests: random token soups and
// mutations of real configs. Invariant: parsePbtxt returns { ok: false, error: line/column/message } or a config;
// a parsed config prints, and print∘parse is a fixed point; the config rules and normalizeConfig never throw.
import { readFileSync, readdirSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  normalizeConfig,
  parsePbtxt,
  parsePbtxtLenient,
  printPbtxt,
  validateEnsembleConfigs,
  validateModelConfig,
  type ModelConfig,
} from '../../packages/core/src/index.ts';
import { FUZZ_RUNS } from '../support/fuzz.ts';
import { EXAMPLES_DIR, ROOT, mutateText } from '../support/mutate.ts';

/** Real configs: the examples, the golden compiler output, and a hand-written one touching most fields. */
function corpus(): string[] {
  const out: string[] = [];
  for (const d of readdirSync(EXAMPLES_DIR)) {
    const p = join(EXAMPLES_DIR, d, 'config.pbtxt');
    if (existsSync(p)) out.push(readFileSync(p, 'utf8'));
  }
  const golden = join(ROOT, 'packages/core/src/compile/__golden__');
  const walk = (dir: string): void => {
    if (!existsSync(dir)) return;
    for (const e of readdirSync(dir, { withFileTypes: true })) {
      if (e.isDirectory()) walk(join(dir, e.name));
      else if (e.name === 'config.pbtxt') out.push(readFileSync(join(dir, e.name), 'utf8'));
    }
  };
  walk(golden);
  out.push(`name: "full"  # comment
platform: "onnxruntime_onnx"
max_batch_size: 8
version_policy: { latest { num_versions: 2 } }
input [ { name: "INPUT0" data_type: TYPE_FP32 format: FORMAT_NCHW dims: [ 3, -1, -1 ] reshape: { shape: [ 1, 3, -1, -1 ] } optional: true } ]
output [ { name: "OUT" data_type: TYPE_STRING dims: [ -1 ] label_filename: "labels.txt" } ]
instance_group [ { count: 2 kind: KIND_CPU }, { count: 1 kind: KIND_GPU gpus: [ 0, 1 ] } ]
parameters { key: "ensemble_studio" value: { string_value: "{\\"kind\\":\\"router\\",\\"count\\":2}" } }
parameters: { key: "x\\n\\t\\001\\xff\\u00e9" value { string_value: 'single \\' quoted' } }
model_warmup [ { name: "w" batch_size: 1 inputs { key: "INPUT0" value: { data_type: TYPE_FP32 dims: [ 3, 4, 4 ] zero_data: true } } } ]
sequence_batching { max_sequence_idle_microseconds: 5000000 oldest { max_candidate_sequences: 4 }
  control_input [ { name: "START" control [ { kind: CONTROL_SEQUENCE_START int32_false_true: [ 0, 1 ] } ] } ]
  state [ { input_name: "s" output_name: "sN" data_type: TYPE_FP32 dims: [ 2, -1, 128 ] initial_state: { data_type: TYPE_FP32 dims: [ 2, 1, 128 ] zero_data: true name: "z" } } ] }
model_transaction_policy { decoupled: false }
optimization { execution_accelerators { gpu_execution_accelerator : [ { name : "tensorrt" parameters { key: "precision_mode" value: "FP16" } } ] } }
some_future_field: 7
`);
  return out;
}

const CORPUS = corpus();
const TOKENS = [
  '{',
  '}',
  '[',
  ']',
  ':',
  ',',
  ';',
  '<',
  '>',
  '"',
  "'",
  '\\',
  '#',
  '\n',
  ' ',
  '-',
  '.',
  'e',
  '0x',
  '1e400',
  '-1',
  '9'.repeat(40),
  'nan',
  'inf',
  '-inf',
  'true',
  'false',
  'TYPE_FP32',
  'TYPE_NOPE',
  'KIND_GPU',
  'name',
  'dims',
  'input',
  'output',
  'max_batch_size',
  'instance_group',
  'dynamic_batching',
  'sequence_batching',
  'parameters',
  'key',
  'value',
  'string_value',
  'step',
  'unknown_field',
  '"\\x"',
  '"\\u12"',
  '"\\777"',
  '"unterminated',
  '\u0000',
  '\ud800',
  'é',
  '😀',
  '[ [ [',
  '{ { {',
  '}}}}',
  '/* c */',
];
const soup = fc.array(fc.constantFrom(...TOKENS), { maxLength: 60 }).map((xs) => xs.join(''));
const mutated = fc
  .tuple(fc.nat({ max: CORPUS.length - 1 }), fc.infiniteStream(fc.nat()), fc.integer({ min: 1, max: 6 }))
  .map(([i, rand, n]) => mutateText(CORPUS[i]!, rand, n, TOKENS));
const text = fc.oneof(soup, mutated, fc.string({ maxLength: 200 }), fc.string({ unit: 'binary', maxLength: 100 }));

/** Every layer a config goes through when a repository is opened, compiled or served. */
function checkConfig(config: ModelConfig, source: string, parse = parsePbtxt): void {
  const printed = printPbtxt(config);
  const again = parse(printed);
  expect(
    again.ok,
    `${JSON.stringify(source)} printed as ${JSON.stringify(printed)}: ${again.ok ? '' : again.error.message}`,
  ).toBe(true);
  if (!again.ok) return;
  expect(again.config).toEqual(config);
  expect(printPbtxt(again.config)).toBe(printed);
  for (const d of validateModelConfig(config, { dirName: 'm' })) expect(d.message).toMatch(/\S/);
  const normal = normalizeConfig(config, { dirName: 'm', files: ['1/model.onnx'] });
  for (const d of validateModelConfig(normal, { dirName: 'm' })) expect(d.message).toMatch(/\S/);
  for (const d of validateEnsembleConfigs({ m: normal, a: { name: 'a', platform: 'onnxruntime_onnx' } } as never))
    expect(d.message).toMatch(/\S/);
}

describe('fuzz: config.pbtxt', () => {
  it(`the corpus parses (${CORPUS.length} real configs) and is stable under print∘parse`, () => {
    expect(CORPUS.length).toBeGreaterThanOrEqual(5);
    for (const src of CORPUS) {
      const r = parsePbtxtLenient(src);
      expect(r.ok, r.ok ? '' : `${r.error.line}:${r.error.column} ${r.error.message}\n${src}`).toBe(true);
      if (r.ok) checkConfig(r.config, src, parsePbtxtLenient);
    }
  });

  it(`parsePbtxt and parsePbtxtLenient never throw on ${FUZZ_RUNS.pbtxt} random and mutated texts; errors point inside the text`, () => {
    let parsed = 0;
    fc.assert(
      fc.property(text, (src) => {
        for (const parse of [parsePbtxt, parsePbtxtLenient]) {
          const r = parse(src);
          if (r.ok) {
            parsed++;
            checkConfig(r.config, src, parse); // lenient keeps unknown fields, so only lenient reads them back
            continue;
          }
          expect(r.error.message).toMatch(/\S/);
          const lines = src.split('\n');
          expect(r.error.line).toBeGreaterThanOrEqual(1);
          expect(r.error.line).toBeLessThanOrEqual(lines.length + 1);
          expect(r.error.column).toBeGreaterThanOrEqual(1);
        }
      }),
      { numRuns: FUZZ_RUNS.pbtxt },
    );
    expect(parsed).toBeGreaterThan(0);
  });

  it('deeply nested, huge and pathological texts get a clear error or a result quickly', () => {
    const cases = [
      'parameters ' + '{ key: "a" value '.repeat(50_000),
      'input ' + '[ '.repeat(100_000),
      `name: "${'x'.repeat(1_000_000)}"`,
      'dims: [ ' + Array.from({ length: 200_000 }, () => '1').join(', ') + ' ]',
      'max_batch_size: 99999999999999999999999999999',
      'max_batch_size: -9223372036854775809',
      'name: "a" '.repeat(50_000),
      '#'.repeat(1_000_000),
      '"'.repeat(100_001),
      '\\'.repeat(100_000),
    ];
    for (const src of cases) {
      const r = parsePbtxt(src);
      if (!r.ok) expect(r.error.message, src.slice(0, 40)).toMatch(/\S/);
      else checkConfig(r.config, src.slice(0, 40));
    }
  });
});
