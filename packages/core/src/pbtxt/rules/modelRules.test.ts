import { describe } from 'vitest';
import { BASE, checkConfigCases, type ConfigCase, ens, ENSEMBLE, onnx } from '../../testing/modelConfigCases.ts';

const CASES: ConfigCase[] = [
  ['name-mismatch', BASE, onnx({ name: 'other' }), 'other'],
  ['ensemble-backend', ens({ backend: 'python' }), ENSEMBLE],
  [
    'backend-missing',
    onnx({ platform: undefined, backend: undefined }),
    onnx({ platform: undefined, backend: 'python' }),
  ],
  ['unknown-platform', onnx({ platform: 'onnx', backend: undefined }), BASE],
  [
    'backend-missing',
    onnx({ platform: undefined, backend: undefined, default_model_filename: undefined }),
    onnx({ platform: undefined }),
  ],
  ['platform-backend-mismatch', onnx({ platform: 'onnxruntim' }), BASE],
  [
    'runtime-escape',
    onnx({ runtime: '../other/libtriton_identity.so' }),
    onnx({ runtime: 'sub/../libtriton_onnxruntime.so' }),
  ],
  ['runtime-escape', onnx({ runtime: '/opt/lib/libtriton_x.so' }), onnx({ runtime: 'libtriton_x.so' })],
  [
    'warmup-variable-dims',
    onnx({
      model_warmup: [
        { name: 'w', batch_size: 1, inputs: { x: { data_type: 'TYPE_FP32', dims: [-1], zero_data: true } } },
      ],
    }),
    onnx({
      model_warmup: [
        { name: 'w', batch_size: 1, inputs: { x: { data_type: 'TYPE_FP32', dims: [3], zero_data: true } } },
      ],
    }),
  ],
  [
    'metric-identifier-missing',
    onnx({ model_metrics: { metric_control: [{ histogram_options: { buckets: [1] } }] } }),
    onnx({
      model_metrics: { metric_control: [{ metric_identifier: { family: 'f' }, histogram_options: { buckets: [1] } }] },
    }),
  ],
  [
    'metric-family-missing',
    onnx({
      model_metrics: { metric_control: [{ metric_identifier: { family: '' }, histogram_options: { buckets: [1] } }] },
    }),
    onnx({
      model_metrics: { metric_control: [{ metric_identifier: { family: 'f' }, histogram_options: { buckets: [1] } }] },
    }),
  ],
  [
    'metric-histogram-missing',
    onnx({ model_metrics: { metric_control: [{ metric_identifier: { family: 'f' } }] } }),
    onnx({
      model_metrics: { metric_control: [{ metric_identifier: { family: 'f' }, histogram_options: { buckets: [1] } }] },
    }),
  ],
  [
    'metric-buckets-missing',
    onnx({
      model_metrics: { metric_control: [{ metric_identifier: { family: 'f' }, histogram_options: { buckets: [] } }] },
    }),
    onnx({
      model_metrics: { metric_control: [{ metric_identifier: { family: 'f' }, histogram_options: { buckets: [1] } }] },
    }),
  ],
  [
    'platform-backend-mismatch',
    onnx({ platform: 'tensorrt_plan' }),
    onnx({ platform: 'tensorrt_plan', backend: 'tensorrt' }),
  ],
  ['python-platform', onnx({ backend: 'python' }), onnx({ backend: 'python', platform: undefined })],
  ['max-batch-size-negative', onnx({ max_batch_size: -1 }), onnx({ max_batch_size: 0 })],
];

describe('model rules', () => checkConfigCases(CASES));
