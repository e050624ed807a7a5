import { describe } from 'vitest';
import { chain, checkGraphCases, type GraphCase, routed, withCondition } from '../../testing/graphCases.ts';

const CASES: GraphCase[] = [
  {
    code: 'invalid-expression',
    bad: () => withCondition({ ports: ['boxes'], expression: 'len(boxes) ==' }),
    good: () => withCondition({ ports: ['boxes'], expression: 'len(boxes) == 0' }),
    expect: { nodeId: 'c', column: 14 },
  },
  {
    code: 'invalid-expression',
    bad: () => withCondition({ ports: ['boxes'], expression: 'max(boxse) < 0.5' }),
    good: () => withCondition({ ports: ['boxes'], expression: 'max(boxes) < 0.5' }),
    expect: { column: 5 },
  },
  {
    code: 'invalid-port-name',
    bad: () => withCondition({ ports: ['boxes', '2x'], expression: 'len(boxes) == 0' }),
    good: () => withCondition({ ports: ['boxes', 'x2'], expression: 'len(boxes) == 0' }),
    expect: { port: '2x' },
  },
  {
    code: 'router-no-consumers',
    bad: () => routed(2, 0),
    good: () => routed(2, 2),
    expect: { nodeId: 'r', severity: 'warning' },
  },
  {
    code: 'router-output-unconnected',
    bad: () => routed(3, 2),
    good: () => routed(2, 2),
    expect: { port: 'out_2', fix: 'connect out_2 or set count to 2' },
  },
  { code: 'invalid-param', bad: () => chain().router('r', 0).doc(), good: () => routed(2, 2) },
  {
    code: 'invalid-param',
    bad: () => chain().op('k', 'topk', { k: 0 }).doc(),
    good: () => chain().op('k', 'topk', { k: 3 }).doc(),
    expect: { nodeId: 'k' },
  },
  {
    code: 'unknown-op',
    bad: () =>
      chain()
        .op('k', 'nope' as 'topk')
        .doc(),
    good: () => chain().op('k', 'topk').doc(),
  },
  {
    code: 'unknown-op',
    bad: () =>
      chain()
        .op('k', '__proto__' as 'topk')
        .doc(),
    good: () => chain().op('k', 'topk').doc(),
  },
  {
    code: 'unknown-default-output',
    bad: () => withCondition({ ports: ['boxes'], strategy: 'bls', defaults: { texts: { shape: [0], data: [] } } }),
    good: () => withCondition({ ports: ['boxes'], strategy: 'bls', defaults: { Y: { shape: [0], data: [] } } }),
  },
];

describe('op, condition and router node rules', () => checkGraphCases(CASES));
