import { describe } from 'vitest';
import { BASE, checkConfigCases, type ConfigCase, onnx, withInput } from '../../testing/modelConfigCases.ts';

const CASES: ConfigCase[] = [
  [
    'shape-tensor-platform',
    withInput({ is_shape_tensor: true }),
    withInput({ is_shape_tensor: true }, { platform: 'tensorrt_plan', backend: 'tensorrt' }),
  ],
  [
    'non-linear-io-platform',
    withInput({ is_non_linear_format_io: true }),
    withInput({ is_non_linear_format_io: true, dims: [3, 4, 4] }, { platform: 'tensorrt_plan', backend: 'tensorrt' }),
  ],
  [
    'non-linear-io-dims',
    withInput({ is_non_linear_format_io: true }, { platform: 'tensorrt_plan', backend: 'tensorrt' }),
    withInput({ is_non_linear_format_io: true, dims: [3, 4, 4] }, { platform: 'tensorrt_plan', backend: 'tensorrt' }),
  ],
  [
    'batch-io-unknown-source',
    onnx({
      batch_input: [
        { target_name: ['n'], kind: 'BATCH_ELEMENT_COUNT', data_type: 'TYPE_FP32', source_input: ['nope'] },
      ],
    }),
    onnx({
      batch_input: [{ target_name: ['n'], kind: 'BATCH_ELEMENT_COUNT', data_type: 'TYPE_FP32', source_input: ['x'] }],
    }),
  ],
  [
    'batch-io-dtype',
    onnx({
      batch_input: [{ target_name: ['n'], kind: 'BATCH_ELEMENT_COUNT', data_type: 'TYPE_INT64', source_input: ['x'] }],
    }),
    onnx({
      batch_input: [{ target_name: ['n'], kind: 'BATCH_ELEMENT_COUNT', data_type: 'TYPE_INT32', source_input: ['x'] }],
    }),
  ],
  [
    'batch-io-unknown-target',
    onnx({ batch_output: [{ target_name: ['nope'], kind: 'BATCH_SCATTER_WITH_INPUT_SHAPE', source_input: ['x'] }] }),
    onnx({ batch_output: [{ target_name: ['y'], kind: 'BATCH_SCATTER_WITH_INPUT_SHAPE', source_input: ['x'] }] }),
  ],
  [
    'batch-io-duplicate-target',
    onnx({ batch_output: [{ target_name: ['y', 'y'], kind: 'BATCH_SCATTER_WITH_INPUT_SHAPE', source_input: ['x'] }] }),
    onnx({ batch_output: [{ target_name: ['y'], kind: 'BATCH_SCATTER_WITH_INPUT_SHAPE', source_input: ['x'] }] }),
  ],
  ['io-name-missing', withInput({ name: '' }), BASE],
  ['io-dtype-missing', withInput({ data_type: 'TYPE_INVALID' }), withInput({ data_type: 'TYPE_STRING' })],
  ['io-dims-missing', withInput({ dims: [] }), withInput({ dims: [1], reshape: { shape: [] } })],
  ['io-dim-invalid', withInput({ dims: [0, -2] }), withInput({ dims: [-1, 1] })],
  [
    'format-dims',
    withInput({ format: 'FORMAT_NHWC', dims: [224, 224] }),
    withInput({ format: 'FORMAT_NCHW', dims: [3, 224, 224] }),
  ],
  [
    'reshape-empty',
    withInput({ dims: [1], reshape: { shape: [] } }, { max_batch_size: 0 }),
    withInput({ dims: [1], reshape: { shape: [1, 1] } }, { max_batch_size: 0 }),
  ],
  [
    'reshape-invalid',
    withInput({ dims: [3], reshape: { shape: [0, 3] } }),
    withInput({ dims: [3], reshape: { shape: [1, 3] } }),
  ],
  [
    'reshape-mismatch',
    withInput({ dims: [2, 3], reshape: { shape: [5] } }),
    withInput({ dims: [2, 3], reshape: { shape: [6] } }),
  ],
  [
    'reshape-mismatch',
    withInput({ dims: [2, -1], reshape: { shape: [-1, 2] } }),
    withInput({ dims: [2, -1], reshape: { shape: [1, 2, -1] } }),
  ],
  [
    'io-duplicate',
    onnx({ input: [BASE.input![0]!, BASE.input![0]!] }),
    onnx({ input: [BASE.input![0]!, { ...BASE.input![0]!, name: 'x2' }] }),
  ],
  [
    'batch-io-source',
    onnx({
      batch_input: [
        { target_name: ['n'], kind: 'BATCH_ELEMENT_COUNT', data_type: 'TYPE_FP32', source_input: ['x', 'y'] },
      ],
    }),
    onnx({
      batch_input: [{ target_name: ['n'], kind: 'BATCH_ELEMENT_COUNT', data_type: 'TYPE_FP32', source_input: ['x'] }],
    }),
  ],
];

describe('input and output rules', () => checkConfigCases(CASES));
