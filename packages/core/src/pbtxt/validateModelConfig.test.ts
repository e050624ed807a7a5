import { describe, expect, it } from 'vitest';
import { BASE, withInput, ENSEMBLE, ens, steps, step } from '../testing/modelConfigCases.ts';
import { validateModelConfig } from './validateModelConfig.ts';

// What holds across the rules; each rule module's cases are in rules/<module>.test.ts.

describe('validateModelConfig', () => {
  it('accepts the valid base configs', () => {
    expect(validateModelConfig(BASE, { dirName: 'm' })).toEqual([]);
    expect(validateModelConfig(ENSEMBLE, { dirName: 'e' })).toEqual([]);
  });

  it('names the directory in a name mismatch', () => {
    const [d] = validateModelConfig(BASE, { dirName: 'other' });
    expect(d).toMatchObject({ code: 'name-mismatch', severity: 'error' });
    expect(d?.message).toContain("'other'");
  });

  it('accepts dims [1] reshaped to [] on a batching model', () => {
    expect(validateModelConfig(withInput({ dims: [1], reshape: { shape: [] } }))).toEqual([]);
  });

  it('flags an ensemble output written only through an unreachable step', () => {
    const codes = validateModelConfig(
      ens(steps(step({ x: 'IN', l: 'b' }, { y: 'a', z: 'OUT' }), step({ x: 'a' }, { y: 'b' }))),
    ).map((d) => d.code);
    expect(codes).toEqual(['ensemble-output-unwritten', 'ensemble-step-unreachable', 'ensemble-step-unreachable']);
  });
});
