import { describe } from 'vitest';
import { newGraph } from '../../graph/ops.ts';
import { graphFixture, addSubGraph } from '../../testing/fixtures.ts';
import { chain, checkGraphCases, type GraphCase } from '../../testing/graphCases.ts';

const CASES: GraphCase[] = [
  { code: 'empty-graph', bad: () => newGraph('e'), good: addSubGraph },
  {
    code: 'step-without-outputs',
    bad: () => chain().model('dead', 'identity').feed('X', 'dead', 'INPUT0').doc(),
    good: () => chain().doc(),
    expect: { nodeId: 'dead', severity: 'error' },
  },
  {
    code: 'output-wired-twice',
    bad: () => chain().output('Y2', 'FP32', [-1]).emit('id', 'OUTPUT0', 'Y2').doc(),
    good: () => chain().doc(),
    expect: { nodeId: 'id', port: 'OUTPUT0' },
  },
  {
    code: 'cycle',
    bad: () =>
      chain()
        .model('id2', 'identity')
        .wire('id', 'OUTPUT0', 'id2', 'INPUT0')
        .wire('id2', 'OUTPUT0', 'id', 'INPUT0')
        .doc(),
    good: () => chain().doc(),
    expect: { severity: 'error' },
  },
  {
    code: 'dangling-edge',
    bad: () => chain().wire('id', 'OUTPUT0', 'ghost', 'x', 'bad').doc(),
    good: () => chain().doc(),
    expect: { edgeId: 'bad' },
  },
  {
    code: 'dangling-edge',
    bad: () => chain().wire('id', 'NOPE', 'Y', 'in', 'bad').doc(),
    good: () => chain().doc(),
    expect: { edgeId: 'bad' },
  },
  {
    code: 'duplicate-input-edge',
    bad: () => chain().input('X2', 'FP32', [-1]).wire('X2', 'out', 'id', 'INPUT0', 'second').doc(),
    good: () => chain().doc(),
    expect: { edgeId: 'second', nodeId: 'id', port: 'INPUT0' },
  },
  {
    code: 'tensor-two-producers',
    bad: () =>
      chain().model('id2', 'identity').feed('X', 'id2', 'INPUT0').wire('id2', 'OUTPUT0', 'Y', 'in', 'twice').doc(),
    good: () => chain().doc(),
    expect: { edgeId: 'twice', nodeId: 'Y' },
  },
  {
    code: 'unconnected-input',
    expect: { nodeId: 'simple', port: 'INPUT1' },
    bad: () =>
      graphFixture('e', 8)
        .input('A', 'INT32', [16])
        .model('simple', 'simple')
        .output('O', 'INT32', [16])
        .output('P', 'INT32', [16])
        .feed('A', 'simple', 'INPUT0')
        .emit('simple', 'OUTPUT0', 'O')
        .emit('simple', 'OUTPUT1', 'P')
        .doc(),
    good: () =>
      graphFixture('e', 4)
        .input('A', 'FP32', [-1])
        .model('o', 'optional_in')
        .output('O', 'FP32', [-1])
        .feed('A', 'o', 'INPUT0')
        .emit('o', 'OUTPUT0', 'O')
        .doc(),
  },
  {
    code: 'output-not-fed',
    bad: () => chain().output('Z', 'FP32', [-1]).doc(),
    good: () => chain().doc(),
    expect: { nodeId: 'Z' },
  },
  {
    code: 'output-not-reached',
    bad: () => chain().output('Z', 'FP32', [-1]).emit('X', 'out', 'Z').doc(),
    good: () => chain().doc(),
    expect: { nodeId: 'Z' },
  },
  {
    code: 'output-not-reached',
    bad: () => chain().model('id2', 'identity').output('Z', 'FP32', [-1]).emit('id2', 'OUTPUT0', 'Z').doc(),
    good: () => chain().doc(),
    expect: { nodeId: 'Z' },
  },
  {
    code: 'unused-input',
    bad: () => chain().input('W', 'FP32', [-1]).doc(),
    good: () => chain().doc(),
    expect: { nodeId: 'W', severity: 'error' },
  },
  {
    code: 'unused-output',
    expect: { nodeId: 'simple', port: 'OUTPUT1', severity: 'warning' },
    fixIncludes: 'connect',
    bad: () =>
      graphFixture('e', 8)
        .input('A', 'INT32', [16])
        .input('B', 'INT32', [16])
        .model('simple', 'simple')
        .output('O', 'INT32', [16])
        .feed('A', 'simple', 'INPUT0')
        .feed('B', 'simple', 'INPUT1')
        .emit('simple', 'OUTPUT0', 'O')
        .doc(),
    good: addSubGraph,
  },
];

describe('graph structure rules', () => checkGraphCases(CASES));
