import { describe } from 'vitest';
import { chain, checkGraphCases, gated, type GraphCase, twoOutputs } from '../../testing/graphCases.ts';

const CASES: GraphCase[] = [
  {
    code: 'mixed-decoupled-sources',
    bad: () => gated(false),
    good: () => gated(true),
    expect: { nodeId: 'crop' },
    fixIncludes: "route 'INPUT1' THROUGH the gate: add it to the ports of 'exit'",
  },
  {
    code: 'mixed-decoupled-sources',
    bad: () =>
      chain(0)
        .input('A', 'FP32', [-1])
        .model('rep', 'repeat')
        .model('o', 'optional_in', { max_batch_size: 0 })
        .output('O', 'FP32', [-1])
        .feed('A', 'rep', 'IN')
        .wire('rep', 'OUT', 'o', 'INPUT0')
        .feed('A', 'o', 'INPUT1')
        .emit('o', 'OUTPUT0', 'O')
        .doc(),
    good: () => gated(false, 'error'),
    expect: { nodeId: 'o' },
  },
  {
    code: 'mixed-decoupled-outputs',
    bad: () => twoOutputs(false),
    good: () => twoOutputs(true),
    expect: { nodeId: 'P' },
  },
];

describe('decoupled graph rules', () => checkGraphCases(CASES));
