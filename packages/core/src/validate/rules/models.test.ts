import { describe } from 'vitest';
import { graphFixture } from '../../testing/fixtures.ts';
import { chain, checkGraphCases, gated, type GraphCase } from '../../testing/graphCases.ts';

const CASES: GraphCase[] = [
  {
    code: 'unknown-model',
    bad: () => chain().model('ghost', 'no_such_model').doc(),
    good: () => chain().doc(),
    expect: { nodeId: 'ghost' },
  },
  {
    code: 'model-unavailable',
    bad: () => chain().model('b', 'broken').doc(),
    good: () => chain().doc(),
    expect: { nodeId: 'b' },
  },
  {
    code: 'invalid-model-settings',
    bad: () =>
      chain()
        .model('id2', 'identity', { instance_group: [{ count: 0, kind: 'KIND_CPU' }] })
        .doc(),
    good: () => chain().model('id2', 'identity').doc(),
  },
  {
    code: 'invalid-model-settings',
    bad: () =>
      graphFixture('e', 4)
        .input('X', 'FP32', [-1])
        .model('id', 'identity', { dynamic_batching: { preferred_batch_size: [16] } })
        .output('Y', 'FP32', [-1])
        .feed('X', 'id', 'INPUT0')
        .emit('id', 'OUTPUT0', 'Y')
        .doc(),
    good: () =>
      graphFixture('e', 4)
        .input('X', 'FP32', [-1])
        .model('id', 'identity', { dynamic_batching: { preferred_batch_size: [4] } })
        .output('Y', 'FP32', [-1])
        .feed('X', 'id', 'INPUT0')
        .emit('id', 'OUTPUT0', 'Y')
        .doc(),
  },
  {
    code: 'invalid-model-settings',
    bad: () => chain().model('v', 'vad', { max_batch_size: 0, dynamic_batching: {} }).doc(),
    good: () => chain().model('v', 'vad', { max_batch_size: 0, dynamic_batching: {}, sequence_batching: null }).doc(),
  },
  {
    code: 'conflicting-model-settings',
    bad: () =>
      chain()
        .model('id2', 'identity', { instance_group: [{ count: 2 }] })
        .doc(),
    good: () => chain().model('id2', 'identity', {}).doc(),
    expect: { nodeId: 'id2' },
  },
  {
    code: 'stateful-model',
    bad: () => chain().model('v', 'vad', { max_batch_size: 0 }).doc(),
    good: () => chain().model('v', 'vad', { max_batch_size: 0, sequence_batching: null }).doc(),
    expect: { severity: 'warning', nodeId: 'v' },
  },
  {
    code: 'state-batch-dim',
    bad: () => chain().model('v', 'vad').doc(),
    good: () => chain().model('v', 'vad', { max_batch_size: 0 }).doc(),
    expect: { nodeId: 'v', port: 'state', fix: 'set max_batch_size: 0 on vad' },
  },
  {
    code: 'decoupled-graph',
    bad: () => gated(true),
    good: () => gated(true, 'error'),
    expect: { severity: 'warning' },
    fixIncludes: 'generate_stream',
  },
];

describe('model node rules', () => checkGraphCases(CASES));
