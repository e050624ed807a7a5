import { describe } from 'vitest';
import { graphFixture } from '../../testing/fixtures.ts';
import { chain, checkGraphCases, type GraphCase } from '../../testing/graphCases.ts';

const CASES: GraphCase[] = [
  {
    code: 'dtype-mismatch',
    bad: () =>
      graphFixture('e', 4)
        .input('X', 'INT32', [-1])
        .model('id', 'identity')
        .output('Y', 'FP32', [-1])
        .feed('X', 'id', 'INPUT0')
        .emit('id', 'OUTPUT0', 'Y')
        .doc(),
    good: () => chain().doc(),
    expect: { edgeId: 'e1', port: 'INPUT0' },
    fixIncludes: 'FP32',
  },
  // A non-batching ensemble's input [-1] is rank 1; the batching model wants [-1,-1] (batch dim implied).
  {
    code: 'shape-mismatch',
    bad: () => chain(0).doc(),
    good: () =>
      graphFixture('e', 0)
        .input('X', 'FP32', [-1, -1])
        .model('id', 'identity')
        .output('Y', 'FP32', [-1, -1])
        .feed('X', 'id', 'INPUT0')
        .emit('id', 'OUTPUT0', 'Y')
        .doc(),
    fixIncludes: 'batch dimension',
  },
  // A non-batching model [-1,4] fits a batching ensemble's [4] (full shape [-1,4]); [5] does not.
  {
    code: 'shape-mismatch',
    expect: { nodeId: 'nb' },
    fixIncludes: '[4]',
    bad: () =>
      graphFixture('e', 4)
        .input('X', 'FP32', [5])
        .model('nb', 'nobatch')
        .output('Y', 'FP32', [4])
        .feed('X', 'nb', 'INPUT0')
        .emit('nb', 'OUTPUT0', 'Y')
        .doc(),
    good: () =>
      graphFixture('e', 4)
        .input('X', 'FP32', [4])
        .model('nb', 'nobatch')
        .output('Y', 'FP32', [4])
        .feed('X', 'nb', 'INPUT0')
        .emit('nb', 'OUTPUT0', 'Y')
        .doc(),
  },
  {
    code: 'batch-size',
    bad: () =>
      graphFixture('e', 8)
        .input('X', 'FP32', [-1])
        .model('id', 'small_batch')
        .output('Y', 'FP32', [-1])
        .feed('X', 'id', 'INPUT0')
        .emit('id', 'OUTPUT0', 'Y')
        .doc(),
    good: () => chain(2).doc(),
    expect: { nodeId: 'id' },
    fixIncludes: 'max_batch_size: 8 on small_batch',
  },
  {
    code: 'batch-size',
    bad: () =>
      graphFixture('e', 8)
        .input('X', 'FP32', [-1])
        .model('id', 'identity')
        .output('Y', 'FP32', [-1])
        .feed('X', 'id', 'INPUT0')
        .emit('id', 'OUTPUT0', 'Y')
        .doc(),
    good: () =>
      graphFixture('e', 8)
        .input('X', 'FP32', [-1])
        .model('id', 'identity', { max_batch_size: 8 })
        .output('Y', 'FP32', [-1])
        .feed('X', 'id', 'INPUT0')
        .emit('id', 'OUTPUT0', 'Y')
        .doc(),
  },
];

describe('type rules', () => checkGraphCases(CASES));
