import { expect, it } from 'vitest';
import type { ConditionStrategy, GraphDoc } from '../graph/types.ts';
import type { Diagnostic } from '../validate/diagnostic.ts';
import { validateGraph } from '../validate/validateGraph.ts';
import { fixtureCatalogue, graphFixture, type GraphFixture } from './fixtures.ts';

// Graphs for the tests of the graph rules (validate/rules/*.test.ts) and the check every rule's table of cases goes
// through.

const catalogue = fixtureCatalogue();

/** The diagnostics of `g` over the fixture catalogue. */
export const diags = (g: GraphDoc): Diagnostic[] => validateGraph(g, catalogue);

/** The codes of {@link diags}. */
export const codes = (g: GraphDoc): string[] => diags(g).map((d) => d.code);

/** A decoupled model's output and a second output fed from the request (or, `sameSource`, from that model). */
export const twoOutputs = (sameSource: boolean) => {
  const g = graphFixture('ens', 0)
    .input('A', 'FP32', [-1])
    .model('rep', 'repeat')
    .model('id', 'identity', { max_batch_size: 0 })
    .output('O', 'FP32', [-1])
    .output('P', 'FP32', [-1])
    .feed('A', 'rep', 'IN')
    .emit('rep', 'OUT', 'O')
    .emit('id', 'OUTPUT0', 'P');
  return (sameSource ? g.wire('rep', 'OUT', 'id', 'INPUT0') : g.feed('A', 'id', 'INPUT0')).doc();
};
/** X (FP32 [-1]) → identity (mbs 4) → Y, in an ensemble with max_batch_size `mbs`. */
export const chain = (mbs = 4): GraphFixture =>
  graphFixture('ens', mbs)
    .input('X', 'FP32', [-1])
    .model('id', 'identity')
    .output('Y', 'FP32', [-1])
    .feed('X', 'id', 'INPUT0')
    .emit('id', 'OUTPUT0', 'Y');

/** x → det → condition 'exit' → crop (optional_in) → y; the image reaches crop through the gate or not. */
export function gated(through: boolean, strategy: ConditionStrategy = 'gate'): GraphDoc {
  const g = graphFixture('ocr', 4)
    .input('x', 'FP32', [-1])
    .model('det', 'identity')
    .condition('exit', { ports: through ? ['boxes', 'img'] : ['boxes'], strategy, expression: 'len(boxes) == 0' })
    .model('crop', 'optional_in')
    .output('y', 'FP32', [-1])
    .feed('x', 'det', 'INPUT0')
    .wire('det', 'OUTPUT0', 'exit', 'boxes')
    .wire('exit', 'boxes', 'crop', 'INPUT0')
    .emit('crop', 'OUTPUT0', 'y');
  return (
    through ? g.feed('x', 'exit', 'img').wire('exit', 'img', 'crop', 'INPUT1') : g.feed('x', 'crop', 'INPUT1')
  ).doc();
}

/** X → identity → condition 'c' (error strategy unless `params` says) → Y. */
export const withCondition = (params: Parameters<GraphFixture['condition']>[1]): GraphDoc =>
  graphFixture('ens', 4)
    .input('X', 'FP32', [-1])
    .model('id', 'identity')
    .condition('c', { strategy: 'error', ...params })
    .output('Y', 'FP32', [-1])
    .feed('X', 'id', 'INPUT0')
    .wire('id', 'OUTPUT0', 'c', 'boxes')
    .emit('c', 'boxes', 'Y')
    .doc();

/** X → router 'r' with `count` outputs, the first `connected` of them each to an identity model and an output. */
export const routed = (count: number, connected: number): GraphDoc => {
  const g = graphFixture('ens', 4).input('X', 'FP32', [-1]).router('r', count);
  for (let i = 0; i < connected; i++)
    g.model(`id${i}`, 'identity')
      .output(`Y${i}`, 'FP32', [-1])
      .wire('r', `out_${i}`, `id${i}`, 'INPUT0')
      .emit(`id${i}`, 'OUTPUT0', `Y${i}`);
  if (connected === 0)
    g.model('id', 'identity').output('Y', 'FP32', [-1]).feed('X', 'id', 'INPUT0').emit('id', 'OUTPUT0', 'Y');
  return g.feed('X', 'r', 'in').doc();
};

/** A rule's case: the diagnostic `code`, a graph that triggers it, a close one that does not, what the diagnostic holds. */
export interface GraphCase {
  code: string;
  bad: () => GraphDoc;
  good: () => GraphDoc;
  expect?: Partial<Diagnostic>;
  fixIncludes?: string;
}

/**
 * Registers the tests of a table of cases: each code is reported for its bad graph (with what `expect` and
 * `fixIncludes` ask, a message and a fix) and not for its good one.
 * @example describe('node rules', () => checkGraphCases(CASES))
 */
export function checkGraphCases(cases: readonly GraphCase[]): void {
  it.each(cases.map((c, i) => [`${c.code} #${i}`, c] as const))(
    '%s: triggered by the bad graph, not by the good one',
    (_, c) => {
      const found = diags(c.bad()).filter((d) => d.code === c.code);
      expect(found.length).toBeGreaterThan(0);
      if (c.expect) expect(found).toContainEqual(expect.objectContaining(c.expect));
      if (c.fixIncludes) expect(found.some((d) => d.fix?.includes(c.fixIncludes!))).toBe(true);
      for (const d of found) {
        expect(d.message.length).toBeGreaterThan(10);
        expect(d.fix).toBeTruthy();
      }
      expect(codes(c.good())).not.toContain(c.code);
    },
  );
}
