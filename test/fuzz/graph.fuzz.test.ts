// Adversarial fuzz of graph documents: untrusted JSON → migrate → validateGraph → layoutGraph → compileGraph,
// plus canConnect on random connections. Invariant: migrate returns {ok:false, error} or a graph; every later
// step returns data (diagnostics, positions, files) and never throws; a graph without errors compiles. Cases the
// properties found, and graphs too large for a property, are in graph.regressions.test.ts.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  canConnect,
  migrate,
  validateGraph,
  DATA_TYPES,
  OP_DEFS,
  type Catalogue,
} from '../../packages/core/src/index.ts';
import * as fixtures from '../../packages/core/src/testing/fixtures.ts';
import { loadRepository } from '../../apps/server/src/repo/loadRepository.ts';
import { FUZZ_RUNS } from '../support/fuzz.ts';
import { PROTOTYPE_NAMES } from '../support/hostileNames.ts';
import { EXAMPLES_DIR, mutateJson } from '../support/mutate.ts';
import { exercise } from './graphExercise.ts';

let examples: Catalogue;
const exampleGraphs: unknown[] = [];
const catalogues = (): Catalogue[] => [fixtures.fixtureCatalogue(), examples];

beforeAll(async () => {
  examples = (await loadRepository(EXAMPLES_DIR)).catalogue;
  for (const g of ['ocr', 'vad-stream'])
    exampleGraphs.push(JSON.parse(readFileSync(join(EXAMPLES_DIR, g, 'studio.json'), 'utf8')));
});

const MODELS = [
  'simple',
  'identity',
  'small_batch',
  'nobatch',
  'optional_in',
  'repeat',
  'vad',
  'det',
  'rec',
  'broken',
  'cls',
  'nope',
  '',
  ...PROTOTYPE_NAMES,
];
const PORT_NAMES = [
  'out',
  'in',
  'INPUT0',
  'INPUT1',
  'OUTPUT0',
  'OUTPUT1',
  'x',
  'y',
  'prob',
  'probs',
  'input',
  'output',
  'IN',
  'OUT',
  'out_0',
  'out_1',
  'out_7',
  'image',
  'boxes',
  'scores',
  'texts',
  'audio',
  '',
  ...PROTOTYPE_NAMES,
];
const id = fc.constantFrom('a', 'b', 'c', 'd', 'e', 'f', 'g', 'h', 'x y', 'é', ...PROTOTYPE_NAMES);
const name = fc.constantFrom(
  'INPUT0',
  'INPUT1',
  'OUTPUT0',
  'x',
  'y',
  'image',
  'boxes',
  'a b',
  '',
  '1bad',
  'n'.repeat(300),
  ...PROTOTYPE_NAMES,
);
const dims = fc.array(
  fc.oneof(
    { weight: 9, arbitrary: fc.constantFrom(-1, 1, 3, 16) },
    { weight: 1, arbitrary: fc.integer({ min: -3, max: 2 ** 31 }) },
  ),
  { maxLength: 4 },
);
const expression = fc.constantFrom(
  'len(boxes) == 0',
  'max(scores) < 0.5',
  'x > ',
  'true',
  'flag and not flag',
  '',
  'y.shape[9] == 1',
  'sum(__proto__) > 1',
);

const node = fc
  .oneof(
    fc.record({
      id,
      kind: fc.constant('input'),
      params: fc.record({ name, datatype: fc.constantFrom(...DATA_TYPES), dims, optional: fc.boolean() }),
    }),
    fc.record({
      id,
      kind: fc.constant('output'),
      params: fc.record({ name, datatype: fc.constantFrom(...DATA_TYPES), dims }),
    }),
    fc.record({
      id,
      kind: fc.constant('model'),
      params: fc.record(
        {
          model: fc.constantFrom(...MODELS.filter(Boolean)),
          settings: fc.record(
            {
              max_batch_size: fc.nat({ max: 64 }),
              instance_group: fc.array(
                fc.record({
                  count: fc.integer({ min: -1, max: 4 }),
                  kind: fc.constantFrom('KIND_CPU', 'KIND_GPU', 'KIND_AUTO'),
                }),
                { maxLength: 2 },
              ),
              dynamic_batching: fc.option(
                fc.record({
                  preferred_batch_size: fc.array(fc.integer({ min: -2, max: 70 }), { maxLength: 3 }),
                  max_queue_delay_microseconds: fc.nat({ max: 10_000 }),
                }),
                { nil: null },
              ),
              decoupled: fc.boolean(),
            },
            { requiredKeys: [] },
          ),
        },
        { requiredKeys: ['model'] },
      ),
    }),
    fc.record({
      id,
      kind: fc.constant('router'),
      params: fc.record({ mode: fc.constantFrom('copy', 'direct'), count: fc.integer({ min: -1, max: 9 }) }),
    }),
    fc.record({
      id,
      kind: fc.constant('condition'),
      params: fc.record({
        expression,
        strategy: fc.constantFrom('gate', 'bls', 'error'),
        ports: fc.array(fc.constantFrom(...PORT_NAMES), { maxLength: 3 }),
        message: fc.string({ maxLength: 10 }),
        defaults: fc.dictionary(
          name,
          fc.record({
            shape: fc.array(fc.nat({ max: 3 }), { maxLength: 2 }),
            data: fc.array(fc.oneof(fc.integer(), fc.string({ maxLength: 3 }), fc.boolean()), { maxLength: 4 }),
          }),
          { maxKeys: 2 },
        ),
      }),
    }),
    fc.record({
      id,
      kind: fc.constant('op'),
      params: fc.record({
        op: fc.constantFrom(...Object.keys(OP_DEFS), 'no_such_op'),
        values: fc.dictionary(
          fc.constantFrom('max_side', 'k', 'threshold', 'unclip_ratio', 'dictionary', 'context', 'window', 'x'),
          fc.oneof(
            fc.integer({ min: -5, max: 5000 }),
            fc.double({ noNaN: true, noDefaultInfinity: true }),
            fc.string({ maxLength: 4 }),
            fc.boolean(),
          ),
          { maxKeys: 3 },
        ),
      }),
    }),
  )
  .map((n) => ({ ...n, position: { x: 0, y: 0 } }));

const edge = fc.record({
  source: id,
  sourcePort: fc.constantFrom(...PORT_NAMES.filter(Boolean)),
  target: id,
  targetPort: fc.constantFrom(...PORT_NAMES.filter(Boolean)),
});

/** A random graph document: unique node ids (else migrate rightly refuses it), random and often wrong wiring. */
const graphDoc = fc
  .record({
    name: fc.constantFrom('ens', 'ocr', 'a b', '', 'x'.repeat(200), '../etc', ...PROTOTYPE_NAMES),
    maxBatchSize: fc.nat({ max: 16 }),
    nodes: fc.uniqueArray(node, { selector: (n) => n.id, maxLength: 8 }),
    edges: fc.array(edge, { maxLength: 12 }),
  })
  .map((g) => ({ version: 1, ...g, edges: g.edges.map((e, i) => ({ id: `e${i}`, ...e })) }));

describe('fuzz: graph documents', () => {
  it(`migrate never throws on ${FUZZ_RUNS.graph} arbitrary JSON values`, () => {
    fc.assert(
      fc.property(fc.oneof(fc.jsonValue(), fc.anything()), (v) => {
        const r = migrate(v);
        if (!r.ok) expect(r.error).toMatch(/\S/);
        else exercise(r.graph, fixtures.fixtureCatalogue());
      }),
      { numRuns: FUZZ_RUNS.graph },
    );
  });

  it(`random graphs over two catalogues validate, lay out and compile without throwing (${FUZZ_RUNS.graph} cases)`, () => {
    let valid = 0;
    // Random wiring is almost never valid: mix in lightly mutated valid fixtures so the "no errors ⇒ compiles" branch runs.
    const lightlyMutated = fc
      .tuple(fc.infiniteStream(fc.nat()), fc.nat({ max: 2 }))
      .map(([rand, n]) => mutateJson(fixtures.addSubGraph(), rand, n));
    fc.assert(
      fc.property(fc.oneof(graphDoc, lightlyMutated), fc.nat({ max: 1 }), (doc, c) => {
        const r = migrate(JSON.parse(JSON.stringify(doc)));
        if (!r.ok) {
          expect(r.error).toMatch(/\S/);
          return;
        }
        const catalogue = catalogues()[c]!;
        exercise(r.graph, catalogue);
        if (!validateGraph(r.graph, catalogue).some((d) => d.severity === 'error')) valid++;
      }),
      { numRuns: FUZZ_RUNS.graph },
    );
    expect(valid).toBeGreaterThan(0);
  });

  it(`canConnect answers every random connection with ok or a reason (${FUZZ_RUNS.graph} cases)`, () => {
    fc.assert(
      fc.property(graphDoc, edge, fc.nat({ max: 1 }), (doc, c, k) => {
        const r = migrate(doc);
        if (!r.ok) return;
        const res = canConnect(r.graph, catalogues()[k]!, c);
        if (!res.ok) expect(res.reason).toMatch(/\S/);
      }),
      { numRuns: FUZZ_RUNS.graph },
    );
  });

  it(`mutated example graphs (ocr, vad-stream) give an error or diagnostics, never a throw (${FUZZ_RUNS.graph} cases)`, () => {
    fc.assert(
      fc.property(fc.nat({ max: 1 }), fc.infiniteStream(fc.nat()), fc.integer({ min: 1, max: 4 }), (g, rand, count) => {
        const doc = mutateJson(exampleGraphs[g], rand, count);
        const r = migrate(doc);
        if (!r.ok) expect(r.error).toMatch(/\S/);
        else exercise(r.graph, examples);
      }),
      { numRuns: FUZZ_RUNS.graph },
    );
  });
});
