// Graph fixtures for the compiler's golden, validity and generated-Python tests.
import type { ConditionStrategy, GraphDoc } from '../../packages/core/src/graph/types.ts';
import { graphFixture } from '../../packages/core/src/testing/fixtures.ts';

/** identity (mbs 4, with settings) → optional_in → Y. */
function chainGraph(): GraphDoc {
  return graphFixture('chain', 4)
    .input('X', 'FP32', [-1])
    .model('first', 'identity', {
      instance_group: [{ kind: 'KIND_CPU', count: 2 }],
      dynamic_batching: { max_queue_delay_microseconds: 100 },
    })
    .model('second', 'optional_in')
    .output('Y', 'FP32', [-1])
    .feed('X', 'first', 'INPUT0')
    .wire('first', 'OUTPUT0', 'second', 'INPUT0')
    .emit('second', 'OUTPUT0', 'Y')
    .doc();
}

/** identity → router (copy|direct, 2) → A and → optional_in → B. */
export function routerGraph(mode: 'copy' | 'direct'): GraphDoc {
  return graphFixture(`router_${mode}`, 4)
    .input('X', 'FP32', [-1])
    .model('m', 'identity')
    .router('r', 2, mode)
    .model('head', 'optional_in')
    .output('A', 'FP32', [-1])
    .output('B', 'FP32', [-1])
    .feed('X', 'm', 'INPUT0')
    .wire('m', 'OUTPUT0', 'r', 'in')
    .emit('r', 'out_0', 'A')
    .wire('r', 'out_1', 'head', 'INPUT0')
    .emit('head', 'OUTPUT0', 'B')
    .doc();
}

/** The user's error message used by the condition fixtures: quotes, backslashes, newlines, unicode. */
export const HOSTILE_MESSAGE = 'no "boxes"\'\'\' found\\n \\ \n"""; import os; os.system("x") #\t✓ 漢字';

/** identity → condition (`max(y) < 0.5`, ports [y]) → optional_in → Y. */
export function conditionGraph(strategy: ConditionStrategy, name = `cond_${strategy}`): GraphDoc {
  return graphFixture(name, 4)
    .input('X', 'FP32', [-1])
    .model('m', 'identity')
    .condition('c', {
      ports: ['y'],
      expression: 'max(y) < 0.5',
      strategy,
      message: HOSTILE_MESSAGE,
      defaults: strategy === 'bls' ? { Y: { shape: [1, 2], data: [-1, -2] } } : {},
    })
    .model('head', 'optional_in')
    .output('Y', 'FP32', [-1])
    .feed('X', 'm', 'INPUT0')
    .wire('m', 'OUTPUT0', 'c', 'y')
    .wire('c', 'y', 'head', 'INPUT0')
    .emit('head', 'OUTPUT0', 'Y')
    .doc();
}

/** scores → topk (k = 2) → values, indices. */
export function opGraph(): GraphDoc {
  return graphFixture('topk_op', 0)
    .input('scores', 'FP32', [-1, -1])
    .op('top', 'topk', { k: 2 })
    .output('values', 'FP32', [-1, -1])
    .output('indices', 'INT64', [-1, -1])
    .feed('scores', 'top', 'scores')
    .emit('top', 'values', 'values')
    .emit('top', 'indices', 'indices')
    .doc();
}

/** BLS with a router, an op and a condition: X → identity → router copy → (A, topk-less head). */
export function blsMixedGraph(): GraphDoc {
  return graphFixture('bls_mixed', 0)
    .input('scores', 'FP32', [-1, -1])
    .op('top', 'topk', { k: 1 })
    .condition('c', {
      ports: ['values'],
      expression: 'max(values) < 0.5',
      strategy: 'bls',
      message: 'low',
      defaults: {},
    })
    .router('r', 2, 'copy')
    .output('V1', 'FP32', [-1, -1])
    .output('V2', 'FP32', [-1, -1])
    .output('I', 'INT64', [-1, -1])
    .feed('scores', 'top', 'scores')
    .wire('top', 'values', 'c', 'values')
    .wire('c', 'values', 'r', 'in')
    .emit('r', 'out_0', 'V1')
    .emit('r', 'out_1', 'V2')
    .emit('top', 'indices', 'I')
    .doc();
}

/** Every golden case: name → graph. */
export const GOLDEN_CASES: Record<string, () => GraphDoc> = {
  chain: chainGraph,
  router_copy: () => routerGraph('copy'),
  router_direct: () => routerGraph('direct'),
  condition_gate: () => conditionGraph('gate'),
  condition_error: () => conditionGraph('error'),
  condition_bls: () => conditionGraph('bls'),
  op_topk: opGraph,
  bls_mixed: blsMixedGraph,
};
