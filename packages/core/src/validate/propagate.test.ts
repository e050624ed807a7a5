import { describe, expect, it } from 'vitest';
import { fixtureCatalogue, graphFixture } from '../testing/fixtures.ts';
import { portKey, propagateTypes, shapesCompatible } from './propagate.ts';

const catalogue = fixtureCatalogue();

describe('propagateTypes', () => {
  it('gives declared ports their full shapes (batch dim from the effective max_batch_size)', () => {
    const g = graphFixture('e', 4)
      .input('X', 'FP32', [-1])
      .model('a', 'identity')
      .model('b', 'identity', { max_batch_size: 0 })
      .doc();
    const t = propagateTypes(g, catalogue);
    expect(t.get(portKey('X', 'out'))).toEqual({ datatype: 'FP32', shape: [-1, -1] });
    expect(t.get(portKey('a', 'INPUT0'))).toEqual({ datatype: 'FP32', shape: [-1, -1] });
    expect(t.get(portKey('b', 'INPUT0'))).toEqual({ datatype: 'FP32', shape: [-1] });
  });

  it('passes types through chained routers and conditions, from their producers', () => {
    const g = graphFixture('e', 8)
      .input('A', 'INT32', [16])
      .router('r1', 2)
      .router('r2', 3)
      .condition('c', { ports: ['p', 'q'] })
      .wire('r2', 'out_2', 'c', 'p')
      .wire('r1', 'out_1', 'r2', 'in')
      .feed('A', 'r1', 'in')
      .doc();
    const t = propagateTypes(g, catalogue);
    const int16 = { datatype: 'INT32', shape: [-1, 16] };
    expect(t.get(portKey('r1', 'out_0'))).toEqual(int16);
    expect(t.get(portKey('r2', 'out_0'))).toEqual(int16);
    expect(t.get(portKey('c', 'p'))).toEqual(int16);
    expect(t.get(portKey('c', 'q'))).toEqual({ datatype: null, shape: null });
  });

  it('terminates on a cycle through routers', () => {
    const g = graphFixture()
      .router('r1', 1)
      .router('r2', 1)
      .wire('r1', 'out_0', 'r2', 'in')
      .wire('r2', 'out_0', 'r1', 'in')
      .doc();
    expect(propagateTypes(g, catalogue).get(portKey('r1', 'out_0'))).toEqual({ datatype: null, shape: null });
  });

  it('treats -1 as a wildcard and requires equal ranks', () => {
    expect(shapesCompatible([-1, 16], [8, 16])).toBe(true);
    expect(shapesCompatible([-1, 16], [-1, 8])).toBe(false);
    expect(shapesCompatible([16], [-1, 16])).toBe(false);
    expect(shapesCompatible(null, [1])).toBe(true);
  });
});
