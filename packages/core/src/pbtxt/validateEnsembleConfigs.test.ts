import { describe, expect, it } from 'vitest';
import type { EnsembleStep, ModelConfig, ModelInput } from './modelConfig.ts';
import { isEnsembleDecoupled, validateEnsembleConfigs } from './validateEnsembleConfigs.ts';

type Repo = Record<string, ModelConfig>;
const t = (
  name: string,
  dims: number[] = [3],
  data_type = 'TYPE_FP32',
  extra: Partial<ModelInput> = {},
): ModelInput => ({ name, data_type, dims, ...extra });

const model = (
  name: string,
  input: ModelInput[],
  output: ModelInput[],
  extra: Partial<ModelConfig> = {},
): ModelConfig => ({ name, backend: 'python', max_batch_size: 8, input, output, ...extra });
const step = (
  model_name: string,
  input_map: Record<string, string>,
  output_map: Record<string, string>,
): EnsembleStep => ({ model_name, model_version: -1, input_map, output_map });
const ensemble = (name: string, steps: EnsembleStep[], extra: Partial<ModelConfig> = {}): ModelConfig => ({
  name,
  platform: 'ensemble',
  max_batch_size: 8,
  input: [t('IN')],
  output: [t('OUT')],
  ensemble_scheduling: { step: steps },
  ...extra,
});

const A = model('a', [t('x')], [t('y')]);
const B = model('b', [t('x')], [t('y')]);
const PIPE = ensemble('e', [step('a', { x: 'IN' }, { y: 'mid' }), step('b', { x: 'mid' }, { y: 'OUT' })]);
const GOOD: Repo = { e: PIPE, a: A, b: B };
const DECOUPLED = { model_transaction_policy: { decoupled: true } };

type Case = [code: string, bad: Repo, good: Repo];
const CASES: Case[] = [
  ['ensemble-model-missing', { e: PIPE, a: A }, GOOD],
  [
    'ensemble-cycle',
    {
      e1: ensemble('e1', [step('e2', { IN: 'IN' }, { OUT: 'OUT' })]),
      e2: ensemble('e2', [step('e1', { IN: 'IN' }, { OUT: 'OUT' })]),
    },
    {
      e1: ensemble('e1', [step('e2', { IN: 'IN' }, { OUT: 'OUT' })]),
      e2: ensemble('e2', [step('a', { x: 'IN' }, { y: 'OUT' })]),
      a: A,
    },
  ],
  [
    'ensemble-batch-size',
    { ...GOOD, a: { ...A, max_batch_size: 4 } },
    { ...GOOD, a: { ...A, max_batch_size: 0, input: [t('x', [-1, 3])], output: [t('y', [-1, 3])] } },
  ],
  ['ensemble-dtype-mismatch', { ...GOOD, b: model('b', [t('x', [3], 'TYPE_INT32')], [t('y')]) }, GOOD],
  [
    'ensemble-shape-mismatch',
    { ...GOOD, b: model('b', [t('x', [4])], [t('y')]) },
    { ...GOOD, b: model('b', [t('x', [-1])], [t('y')]) },
  ],
  [
    'ensemble-shape-mismatch',
    { ...GOOD, a: { ...A, max_batch_size: 0, input: [t('x', [4])] } },
    { ...GOOD, a: { ...A, max_batch_size: 0, input: [t('x', [-1, 3])], output: [t('y', [-1, 3])] } },
  ],
  [
    'ensemble-shape-mismatch',
    { ...GOOD, e: { ...PIPE, input: [t('IN', [3], 'TYPE_FP32', { reshape: { shape: [1, 3] } })] } },
    { ...GOOD, e: { ...PIPE, input: [t('IN', [1, 3], 'TYPE_FP32', { reshape: { shape: [3] } })] } },
  ],
  [
    'ensemble-map-unknown-input',
    {
      ...GOOD,
      e: ensemble('e', [step('a', { x: 'IN', nope: 'IN' }, { y: 'mid' }), step('b', { x: 'mid' }, { y: 'OUT' })]),
    },
    GOOD,
  ],
  [
    'ensemble-map-unknown-output',
    {
      ...GOOD,
      e: ensemble('e', [step('a', { x: 'IN' }, { y: 'mid', nope: 'x2' }), step('b', { x: 'mid' }, { y: 'OUT' })]),
    },
    GOOD,
  ],
  [
    'ensemble-input-unmapped',
    { ...GOOD, b: model('b', [t('x'), t('x2')], [t('y')]) },
    { ...GOOD, b: model('b', [t('x'), t('x2', [3], 'TYPE_FP32', { optional: true })], [t('y')]) },
  ],
  [
    'ensemble-decoupled-join',
    {
      e: ensemble('e', [step('a', { x: 'IN' }, { y: 'mid' }), step('j', { x: 'mid', z: 'IN' }, { y: 'OUT' })]),
      a: { ...A, ...DECOUPLED },
      j: model('j', [t('x'), t('z')], [t('y')]),
    },
    {
      e: ensemble('e', [
        step('a', { x: 'IN' }, { y: 'mid', z: 'mid2' }),
        step('j', { x: 'mid', z: 'mid2' }, { y: 'OUT' }),
      ]),
      a: model('a', [t('x')], [t('y'), t('z')], DECOUPLED),
      j: model('j', [t('x'), t('z')], [t('y')]),
    },
  ],
  [
    'ensemble-decoupled-join',
    {
      e: ensemble('e', [
        step('a', { x: 'IN' }, { y: 'm1' }),
        step('b', { x: 'IN' }, { y: 'm2' }),
        step('j', { x: 'm1', z: 'm2' }, { y: 'OUT' }),
      ]),
      a: { ...A, ...DECOUPLED },
      b: { ...B, ...DECOUPLED },
      j: model('j', [t('x'), t('z')], [t('y')]),
    },
    {
      e: ensemble('e', [
        step('a', { x: 'IN' }, { y: 'm1' }),
        step('b', { x: 'IN' }, { y: 'm2' }),
        step('j', { x: 'm1', z: 'm2' }, { y: 'OUT' }),
      ]),
      a: A,
      b: B,
      j: model('j', [t('x'), t('z')], [t('y')]),
    },
  ],
];

describe('validateEnsembleConfigs', () => {
  it('accepts a consistent two-step ensemble', () => expect(validateEnsembleConfigs(GOOD)).toEqual([]));

  it.each(CASES)('%s: triggered by the bad repository, not by the good one', (code, bad, good) => {
    expect(validateEnsembleConfigs(bad).map((d) => d.code)).toContain(code);
    expect(validateEnsembleConfigs(good).map((d) => d.code)).not.toContain(code);
  });

  it('lists all missing models in one diagnostic', () => {
    const ds = validateEnsembleConfigs({ e: PIPE });
    expect(ds.filter((d) => d.code === 'ensemble-model-missing')).toHaveLength(1);
    expect(ds[0]?.message).toMatch(/a, b/);
  });

  it('reports a cycle once, with its path', () => {
    const repo: Repo = {
      e1: ensemble('e1', [step('e2', { IN: 'IN' }, { OUT: 'OUT' })]),
      e2: ensemble('e2', [step('e3', { IN: 'IN' }, { OUT: 'OUT' })]),
      e3: ensemble('e3', [step('e1', { IN: 'IN' }, { OUT: 'OUT' })]),
    };
    const cycles = validateEnsembleConfigs(repo).filter((d) => d.code === 'ensemble-cycle');
    expect(cycles).toHaveLength(1);
    expect(cycles[0]?.message).toContain('e1 -> e2 -> e3 -> e1');
  });

  it('names both producers of an inconsistent dtype', () => {
    const d = validateEnsembleConfigs({ ...GOOD, b: model('b', [t('x', [3], 'TYPE_INT32')], [t('y')]) }).find(
      (x) => x.code === 'ensemble-dtype-mismatch',
    );
    expect(d?.message).toContain(
      'in ensemble e, ensemble tensor mid: inconsistent data type: TYPE_FP32 is inferred from model a while TYPE_INT32 is inferred from model b',
    );
    expect(d?.port).toBe('mid');
  });

  it('accepts a tensor whose declared dims agree though the full shapes differ (Triton compares both)', () => {
    const flat = (name: string, mbs: number): ModelConfig => ({
      ...model(name, [t('x', [16])], [t('y', [16])]),
      max_batch_size: mbs,
    });
    const e = {
      ...ensemble('e', [step('a', { x: 'IN' }, { y: 'OUT' })], { max_batch_size: 0 }),
      input: [t('IN', [16])],
      output: [t('OUT', [16])],
    };
    expect(validateEnsembleConfigs({ e, a: flat('a', 8) })).toEqual([]);
    expect(validateEnsembleConfigs({ e, a: { ...flat('a', 8), input: [t('x', [17])] } }).map((d) => d.message)).toEqual(
      [
        'in ensemble e, ensemble tensor IN: inconsistent shape: [16] is inferred from model e while [-1,17] is inferred from model a',
      ],
    );
  });

  it("refuses two ensemble outputs fed by different decoupled steps, in Triton's words", () => {
    const e = {
      ...ensemble('e', [step('a', { x: 'IN' }, { y: 'OUT' }), step('b', { x: 'IN' }, { y: 'OUT2' })]),
      output: [t('OUT'), t('OUT2')],
    };
    const msgs = (a: ModelConfig, b: ModelConfig) => validateEnsembleConfigs({ e, a, b }).map((d) => d.message);
    expect(msgs({ ...A, ...DECOUPLED }, { ...B, ...DECOUPLED })).toEqual([
      "in ensemble e, step of model 'e' receives inputs originated from different decoupled models",
    ]);
    expect(msgs({ ...A, ...DECOUPLED }, B)).toEqual([
      "in ensemble e, step of model 'e' receives inputs originated from different decoupled models",
    ]);
    expect(msgs(A, B)).toEqual([]);
  });

  it('refuses a step version the composing model does not serve under its version_policy', () => {
    const pinned = ensemble('e', [
      step('a', { x: 'IN' }, { y: 'mid' }),
      { ...step('b', { x: 'mid' }, { y: 'OUT' }), model_version: 2 },
    ]);
    const repo = { ...GOOD, e: pinned };
    const codes = (b: ModelConfig, versions: Record<string, number[]>) =>
      validateEnsembleConfigs({ ...repo, b }, versions).map((d) => d.message);
    expect(codes(B, { a: [1], b: [1] })).toEqual([
      "ensemble 'e' depends on 'b' whose required version 2 is not loaded (it serves 1)",
    ]);
    expect(codes(B, { a: [1], b: [1, 2] })).toEqual([]);
    expect(codes({ ...B, version_policy: { all: {} } }, { a: [1], b: [2, 3] })).toEqual([]);
    expect(codes({ ...B, version_policy: { latest: { num_versions: 1 } } }, { a: [1], b: [2, 3] })).toHaveLength(1);
    expect(codes({ ...B, version_policy: { specific: { versions: [1, 3] } } }, { a: [1], b: [1, 2, 3] })).toHaveLength(
      1,
    );
    expect(validateEnsembleConfigs(repo)).toEqual([]);
  });

  it('skips map checks for a model that declares no inputs or outputs', () => {
    expect(validateEnsembleConfigs({ ...GOOD, b: { name: 'b', backend: 'python', max_batch_size: 8 } })).toEqual([]);
  });
});

describe('isEnsembleDecoupled', () => {
  const gen = model('gen', [t('x')], [t('y')], DECOUPLED);
  it('is true for a decoupled model', () => expect(isEnsembleDecoupled('gen', { gen })).toBe(true));
  it('is true for an ensemble with a decoupled step, also nested', () => {
    const inner = ensemble('inner', [step('gen', { x: 'IN' }, { y: 'OUT' })]);
    const outer = ensemble('outer', [step('inner', { IN: 'IN' }, { OUT: 'OUT' })]);
    expect(isEnsembleDecoupled('outer', { outer, inner, gen })).toBe(true);
  });
  it('is false without decoupled steps, for unknown models, and on cycles', () => {
    expect(isEnsembleDecoupled('e', GOOD)).toBe(false);
    expect(isEnsembleDecoupled('nope', GOOD)).toBe(false);
    const e1 = ensemble('e1', [step('e2', {}, {})]);
    const e2 = ensemble('e2', [step('e1', {}, {})]);
    expect(isEnsembleDecoupled('e1', { e1, e2 })).toBe(false);
  });
});

describe('20,000 nested ensembles', () => {
  const N = 20_000;
  /** e0 → e1 → … → e{N-1} → `last`. */
  const nested = (last: string): Repo => {
    const repo: Repo = {};
    for (let i = 0; i < N; i++) {
      const inner = i + 1 < N ? `e${i + 1}` : last;
      repo[`e${i}`] = ensemble(`e${i}`, [step(inner, { IN: 'IN' }, { OUT: 'OUT' })]);
    }
    return repo;
  };

  it('are searched for a cycle without exhausting the stack', () => {
    const cycles = validateEnsembleConfigs(nested('e0')).filter((d) => d.code === 'ensemble-cycle');
    expect(cycles).toHaveLength(1);
    expect(cycles[0]?.message).toContain(`e${N - 1} -> e0)`);
  });

  it('are searched for a decoupled step without exhausting the stack', () => {
    const gen = model('gen', [t('x')], [t('y')], DECOUPLED);
    expect(isEnsembleDecoupled('e0', { ...nested('gen'), gen })).toBe(true);
  });
});
