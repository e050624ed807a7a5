import { describe, expect, it } from 'vitest';
import { fixtureCatalogue, graphFixture } from '../testing/fixtures.ts';
import { canConnect } from './canConnect.ts';

const catalogue = fixtureCatalogue();
const base = () =>
  graphFixture('e', 4)
    .input('X', 'FP32', [-1])
    .input('I', 'INT32', [-1])
    .input('M', 'FP32', [-1, 4])
    .model('a', 'identity')
    .model('b', 'identity')
    .router('r', 2)
    .model('s', 'simple')
    .feed('X', 'a', 'INPUT0')
    .wire('a', 'OUTPUT0', 'b', 'INPUT0');
const check = (g: ReturnType<typeof base>, source: string, sourcePort: string, target: string, targetPort: string) =>
  canConnect(g.doc(), catalogue, { source, sourcePort, target, targetPort });

describe('canConnect', () => {
  it('accepts a matching connection, and one that replaces the producer of an input', () => {
    expect(check(base(), 'X', 'out', 'b', 'INPUT0')).toEqual({ ok: true });
    expect(check(base(), 'b', 'OUTPUT0', 'r', 'in')).toEqual({ ok: true });
  });

  it.each([
    ['a self-loop', ['a', 'OUTPUT0', 'a', 'INPUT0'], "'a' cannot feed itself"],
    ['a cycle', ['b', 'OUTPUT0', 'a', 'INPUT0'], 'would create a cycle'],
    ['an unknown source port', ['a', 'NOPE', 'b', 'INPUT0'], "no output port 'NOPE'"],
    ['an unknown target port', ['a', 'OUTPUT0', 'b', 'NOPE'], "no input port 'NOPE'"],
    ['an unknown node', ['ghost', 'out', 'b', 'INPUT0'], "unknown node 'ghost'"],
    ['a dtype mismatch', ['I', 'out', 'a', 'INPUT0'], 'dtype mismatch'],
    ['a rank mismatch', ['M', 'out', 'a', 'INPUT0'], 'shape mismatch'],
    [
      'a dtype mismatch between models',
      ['a', 'OUTPUT0', 's', 'INPUT0'],
      "dtype mismatch: 'a'.OUTPUT0 is FP32 but 's'.INPUT0 expects INT32",
    ],
  ] as const)('refuses %s', (_, [s, sp, t, tp], reason) => {
    const r = check(base(), s, sp, t, tp);
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.reason).toContain(reason);
  });

  it('refuses a fixed dim that differs, with -1 as a wildcard', () => {
    const g = graphFixture('e', 8)
      .input('A', 'INT32', [8])
      .input('B', 'INT32', [16])
      .input('V', 'INT32', [-1])
      .model('s', 'simple');
    const r = check(g, 'A', 'out', 's', 'INPUT0');
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.reason).toBe("shape mismatch: 'A'.out is [-1,8] but 's'.INPUT0 expects [-1,16]");
    expect(check(g, 'B', 'out', 's', 'INPUT0')).toEqual({ ok: true });
    expect(check(g, 'V', 'out', 's', 'INPUT0')).toEqual({ ok: true });
  });

  it('types router outputs from what feeds the router', () => {
    const g = base().feed('I', 'r', 'in');
    const r = check(g, 'r', 'out_0', 'b', 'INPUT0');
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.reason).toContain('INT32');
    expect(check(base().feed('X', 'r', 'in'), 'r', 'out_0', 'b', 'INPUT0')).toEqual({ ok: true });
  });

  it('checks a router target against the consumers it passes the tensor on to', () => {
    const g = base().wire('r', 'out_1', 'b', 'INPUT0');
    const r = check(g, 'I', 'out', 'r', 'in');
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.reason).toContain("(through 'r')");
    expect(check(g, 'X', 'out', 'r', 'in')).toEqual({ ok: true });
  });
});
