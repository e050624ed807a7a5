import { describe } from 'vitest';
import { checkConfigCases, type ConfigCase, ens, ENSEMBLE, onnx } from '../../testing/modelConfigCases.ts';

const CASES: ConfigCase[] = [
  [
    'instance-group-profile',
    onnx({ instance_group: [{ kind: 'KIND_GPU', profile: ['0'] }] }),
    onnx({ platform: 'tensorrt_plan', backend: 'tensorrt', instance_group: [{ kind: 'KIND_GPU', profile: ['0'] }] }),
  ],
  [
    'rate-limiter-resource-duplicate',
    onnx({
      instance_group: [
        {
          rate_limiter: {
            resources: [
              { name: 'R', count: 1 },
              { name: 'R', count: 2 },
            ],
          },
        },
      ],
    }),
    onnx({
      instance_group: [
        {
          rate_limiter: {
            resources: [
              { name: 'R', count: 1 },
              { name: 'S', count: 2 },
            ],
          },
        },
      ],
    }),
  ],
  ['ensemble-instance-group', ens({ instance_group: [{ kind: 'KIND_CPU' }] }), ENSEMBLE],
  [
    'instance-group-gpus',
    onnx({ instance_group: [{ kind: 'KIND_CPU', gpus: [0] }] }),
    onnx({ instance_group: [{ kind: 'KIND_GPU', gpus: [0] }] }),
  ],
  [
    'instance-group-gpus',
    onnx({ instance_group: [{ kind: 'KIND_MODEL', gpus: [1] }] }),
    onnx({ instance_group: [{ kind: 'KIND_MODEL' }] }),
  ],
  ['instance-group-gpu-id', onnx({ instance_group: [{ gpus: [-1] }] }), onnx({ instance_group: [{ gpus: [1] }] })],
  ['instance-group-count', onnx({ instance_group: [{ count: -2 }] }), onnx({ instance_group: [{ count: 3 }] })],
];

describe('instance group rules', () => checkConfigCases(CASES));
