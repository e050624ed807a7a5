import { describe } from 'vitest';
import {
  BASE,
  checkConfigCases,
  type ConfigCase,
  ens,
  ENSEMBLE,
  onnx,
  step,
  steps,
} from '../../testing/modelConfigCases.ts';

const CASES: ConfigCase[] = [
  ['ensemble-scheduling-forbidden', onnx({ ensemble_scheduling: ENSEMBLE.ensemble_scheduling }), BASE],
  ['ensemble-scheduling-missing', ens({ ensemble_scheduling: undefined }), ENSEMBLE],
  ['ensemble-optimization', ens({ optimization: { graph: { level: 1 } } }), ENSEMBLE],
  ['ensemble-warmup', ens({ model_warmup: [{ name: 'w' }] }), ENSEMBLE],
  ['ensemble-steps-missing', ens(steps()), ENSEMBLE],
  [
    'step-model-name-missing',
    ens(steps(step({ x: 'IN' }, { y: 'OUT' }, { model_name: '' }))),
    ens(steps(step({ x: 'IN' }, { y: 'OUT' }))),
  ],
  ['step-input-map-missing', ens(steps(step({}, { y: 'OUT' }))), ens(steps(step({ x: 'IN' }, { y: 'OUT' })))],
  [
    'step-output-map-missing',
    ens(steps(step({ x: 'IN' }, {}), step({ x: 'IN' }, { y: 'OUT' }))),
    ens(steps(step({ x: 'IN' }, { y: 'OUT' }))),
  ],
  [
    'step-model-version',
    ens(steps(step({ x: 'IN' }, { y: 'OUT' }, { model_version: undefined }))),
    ens(steps(step({ x: 'IN' }, { y: 'OUT' }, { model_version: 3 }))),
  ],
  [
    'step-model-version',
    ens(steps(step({ x: 'IN' }, { y: 'OUT' }, { model_version: 0 }))),
    ens(steps(step({ x: 'IN' }, { y: 'OUT' }, { model_version: 1 }))),
  ],
  [
    'step-model-version',
    ens(steps(step({ x: 'IN' }, { y: 'OUT' }, { model_version: -2 }))),
    ens(steps(step({ x: 'IN' }, { y: 'OUT' }, { model_version: -1 }))),
  ],
  [
    'ensemble-tensor-multiple-writers',
    ens(steps(step({ x: 'IN' }, { y: 'OUT' }), step({ x: 'IN' }, { y: 'OUT' }))),
    ens(steps(step({ x: 'IN' }, { y: 'OUT' }))),
  ],
  [
    'ensemble-tensor-multiple-writers',
    ens(steps(step({ x: 'IN' }, { y: 'OUT', z: 'OUT' }))),
    ens(steps(step({ x: 'IN' }, { y: 'OUT' }))),
  ],
  [
    'ensemble-tensor-unused',
    ens(steps(step({ x: 'IN' }, { y: 'OUT', z: 'extra' }))),
    ens(steps(step({ x: 'IN' }, { y: 'OUT' }))),
  ],
  [
    'ensemble-tensor-unproduced',
    ens(steps(step({ x: 'IN', w: 'ghost' }, { y: 'OUT' }))),
    ens(steps(step({ x: 'IN', w: 'IN' }, { y: 'OUT' }))),
  ],
  [
    'ensemble-input-unused',
    ens({ input: [...ENSEMBLE.input!, { name: 'IN2', data_type: 'TYPE_FP32', dims: [3] }] }),
    ens({
      input: [...ENSEMBLE.input!, { name: 'IN2', data_type: 'TYPE_FP32', dims: [3] }],
      ...steps(step({ x: 'IN', w: 'IN2' }, { y: 'OUT' })),
    }),
  ],
  [
    'ensemble-output-unwritten',
    ens({ output: [...ENSEMBLE.output!, { name: 'OUT2', data_type: 'TYPE_FP32', dims: [3] }] }),
    ens({
      output: [...ENSEMBLE.output!, { name: 'OUT2', data_type: 'TYPE_FP32', dims: [3] }],
      ...steps(step({ x: 'IN' }, { y: 'OUT', z: 'OUT2' })),
    }),
  ],
  [
    'ensemble-step-unreachable',
    ens(steps(step({ x: 'IN', l: 'loop2' }, { y: 'loop1', z: 'OUT' }), step({ x: 'loop1' }, { y: 'loop2' }))),
    ens(steps(step({ x: 'IN' }, { y: 'mid' }), step({ x: 'mid' }, { y: 'OUT' }))),
  ],
];

describe('ensemble rules', () => checkConfigCases(CASES));
