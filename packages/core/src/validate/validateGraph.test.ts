import { describe, expect, it } from 'vitest';
import { graphFixture, addSubGraph } from '../testing/fixtures.ts';
import { chain, gated, routed, diags, codes } from '../testing/graphCases.ts';

// What holds across the rules; each rule module's cases are in rules/<module>.test.ts.

describe('validateGraph', () => {
  it('accepts valid graphs without any diagnostic', () => {
    expect(diags(addSubGraph())).toEqual([]);
    expect(diags(chain().doc())).toEqual([]);
    expect(diags(routed(2, 2))).toEqual([]);
  });

  it('reports only the decoupled warning for a gate the image passes through', () => {
    expect(codes(gated(true))).toEqual(['decoupled-graph']);
  });

  it('lists errors before warnings', () => {
    const ds = diags(chain().model('v', 'vad').doc());
    const firstWarning = ds.findIndex((d) => d.severity !== 'error');
    expect(ds.slice(firstWarning).every((d) => d.severity !== 'error')).toBe(true);
  });

  it('names the cycle in order', () => {
    const g = chain()
      .model('id2', 'identity')
      .wire('id', 'OUTPUT0', 'id2', 'INPUT0')
      .wire('id2', 'OUTPUT0', 'id', 'INPUT0')
      .doc();
    expect(diags(g).find((d) => d.code === 'cycle')?.message).toBe("cycle: 'id' → 'id2' → 'id'");
  });

  it('checks condition expressions against the types propagated through a router', () => {
    const g = graphFixture('e', 0)
      .input('S', 'BYTES', [-1])
      .router('r', 1)
      .condition('c', { ports: ['s'], strategy: 'error', expression: 'max(s) > 0' })
      .model('o', 'optional_in', { max_batch_size: 0 })
      .output('Y', 'FP32', [-1])
      .feed('S', 'r', 'in')
      .wire('r', 'out_0', 'c', 's')
      .wire('c', 's', 'o', 'INPUT0')
      .emit('o', 'OUTPUT0', 'Y')
      .doc();
    const ds = diags(g);
    expect(ds.map((d) => d.code)).toContain('invalid-expression');
    expect(ds.find((d) => d.code === 'dtype-mismatch')?.message).toContain('BYTES');
  });
});
