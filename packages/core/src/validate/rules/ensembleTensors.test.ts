import { describe } from 'vitest';
import { graphFixture } from '../../testing/fixtures.ts';
import { chain, checkGraphCases, type GraphCase } from '../../testing/graphCases.ts';

const CASES: GraphCase[] = [
  {
    code: 'optional-input-required',
    expect: { nodeId: 'B', severity: 'warning' },
    bad: () =>
      graphFixture('e', 4)
        .input('A', 'FP32', [-1])
        .input('B', 'FP32', [-1], { optional: true })
        .model('o', 'optional_in')
        .output('O', 'FP32', [-1])
        .feed('A', 'o', 'INPUT1')
        .feed('B', 'o', 'INPUT0')
        .emit('o', 'OUTPUT0', 'O')
        .doc(),
    good: () =>
      graphFixture('e', 4)
        .input('A', 'FP32', [-1])
        .input('B', 'FP32', [-1], { optional: true })
        .model('o', 'optional_in')
        .output('O', 'FP32', [-1])
        .feed('A', 'o', 'INPUT0')
        .feed('B', 'o', 'INPUT1')
        .emit('o', 'OUTPUT0', 'O')
        .doc(),
  },
  {
    code: 'invalid-name',
    bad: () => ({ ...chain().doc(), name: 'my/ens' }),
    good: () => ({ ...chain().doc(), name: 'my_ens-1.2' }),
  },
  {
    code: 'invalid-name',
    bad: () =>
      graphFixture('e', 4)
        .input('X"1', 'FP32', [-1], { id: 'X' })
        .model('id', 'identity')
        .output('Y', 'FP32', [-1])
        .feed('X', 'id', 'INPUT0')
        .emit('id', 'OUTPUT0', 'Y')
        .doc(),
    good: () => chain().doc(),
    expect: { nodeId: 'X' },
  },
  {
    code: 'duplicate-tensor-name',
    bad: () => chain().output('Y', 'FP32', [-1], { id: 'Y2' }).emit('id', 'OUTPUT0', 'Y2').doc(),
    good: () => chain().output('Y2', 'FP32', [-1]).emit('id', 'OUTPUT0', 'Y2').doc(),
    expect: { nodeId: 'Y2' },
  },
];

describe('ensemble tensor rules', () => checkGraphCases(CASES));
