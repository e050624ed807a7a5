import { describe } from 'vitest';
import { checkConfigCases, type ConfigCase, ctl, init, seq, START_OK, state } from '../../testing/modelConfigCases.ts';

const CASES: ConfigCase[] = [
  [
    'state-duplicate-input',
    seq({ state: [...state({}).state, { ...state({}).state[0], output_name: 'so2' }] }),
    seq({ state: [...state({}).state, { ...state({}).state[0], input_name: 'si2', output_name: 'so2' }] }),
  ],
  [
    'sequence-control-name',
    seq({ control_input: [ctl('', [START_OK])] }),
    seq({ control_input: [ctl('START', [START_OK])] }),
  ],
  [
    'sequence-control-tensor-reused',
    seq({
      control_input: [ctl('S', [START_OK]), ctl('S', [{ kind: 'CONTROL_SEQUENCE_END', int32_false_true: [0, 1] }])],
    }),
    seq({ control_input: [ctl('S', [START_OK, { kind: 'CONTROL_SEQUENCE_END', int32_false_true: [0, 1] }])] }),
  ],
  [
    'sequence-control-kind-duplicate',
    seq({ control_input: [ctl('A', [START_OK]), ctl('B', [START_OK])] }),
    seq({ control_input: [ctl('A', [START_OK]), ctl('B', [{ ...START_OK, kind: 'CONTROL_SEQUENCE_READY' }])] }),
  ],
  [
    'sequence-control-form',
    seq({ control_input: [ctl('S', [{ kind: 'CONTROL_SEQUENCE_END' }])] }),
    seq({ control_input: [ctl('S', [{ kind: 'CONTROL_SEQUENCE_END', bool_false_true: [false, true] }])] }),
  ],
  [
    'sequence-control-form',
    seq({ control_input: [ctl('S', [{ ...START_OK, fp32_false_true: [0, 1] }])] }),
    seq({ control_input: [ctl('S', [{ kind: 'CONTROL_SEQUENCE_START', fp32_false_true: [0, 1] }])] }),
  ],
  [
    'sequence-control-size',
    seq({ control_input: [ctl('S', [{ ...START_OK, int32_false_true: [1] }])] }),
    seq({ control_input: [ctl('S', [START_OK])] }),
  ],
  [
    'sequence-corrid-form',
    seq({
      control_input: [
        ctl('C', [{ kind: 'CONTROL_SEQUENCE_CORRID', data_type: 'TYPE_UINT64', int32_false_true: [0, 1] }]),
      ],
    }),
    seq({ control_input: [ctl('C', [{ kind: 'CONTROL_SEQUENCE_CORRID', data_type: 'TYPE_UINT64' }])] }),
  ],
  [
    'sequence-corrid-dtype',
    seq({ control_input: [ctl('C', [{ kind: 'CONTROL_SEQUENCE_CORRID', data_type: 'TYPE_FP32' }])] }),
    seq({ control_input: [ctl('C', [{ kind: 'CONTROL_SEQUENCE_CORRID', data_type: 'TYPE_STRING' }])] }),
  ],
  ['state-names', seq(state({ output_name: '' })), seq(state({}))],
  ['state-dtype', seq(state({ data_type: undefined })), seq(state({ data_type: 'TYPE_INT32' }))],
  ['state-dims', seq(state({ dims: [] })), seq(state({ dims: [4] }))],
  [
    'initial-state-count',
    seq(
      state({
        initial_state: [
          { name: 'a', data_type: 'TYPE_FP32', dims: [1, 4], zero_data: true },
          { name: 'b', data_type: 'TYPE_FP32', dims: [1, 4], zero_data: true },
        ],
      }),
    ),
    seq(init({})),
  ],
  ['initial-state-name', seq(init({ name: '' })), seq(init({ name: 'zeros' }))],
  ['initial-state-dtype', seq(init({ data_type: 'TYPE_INT32' })), seq(init({ data_type: 'TYPE_FP32' }))],
  ['initial-state-dims', seq(init({ dims: [-1, 4] })), seq(init({ dims: [7, 4] }))],
  ['initial-state-dims', seq(init({ dims: [1, 5] })), seq(init({ dims: [1, 4] }))],
  ['initial-state-dims', seq(init({ dims: [4] })), seq(init({ dims: [2, 4] }))],
  [
    'initial-state-data',
    seq(init({ zero_data: undefined })),
    seq(init({ zero_data: undefined, data_file: 'init.bin' })),
  ],
  [
    'slot-utilization-range',
    seq({ direct: { minimum_slot_utilization: 1.5 } }),
    seq({ direct: { minimum_slot_utilization: 0.5 } }),
  ],
];

describe('sequence batching rules', () => checkConfigCases(CASES));
