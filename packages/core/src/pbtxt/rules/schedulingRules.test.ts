import { describe } from 'vitest';
import { checkConfigCases, type ConfigCase, onnx, seq } from '../../testing/modelConfigCases.ts';

const CASES: ConfigCase[] = [
  [
    'preferred-batch-size',
    onnx({ dynamic_batching: { preferred_batch_size: [0] } }),
    onnx({ dynamic_batching: { preferred_batch_size: [1] } }),
  ],
  [
    'preferred-batch-size',
    onnx({ dynamic_batching: { preferred_batch_size: [4, 16] } }),
    onnx({ dynamic_batching: { preferred_batch_size: [4, 8] } }),
  ],
  [
    'priority-level-range',
    onnx({ dynamic_batching: { priority_levels: 2, default_priority_level: 3 } }),
    onnx({ dynamic_batching: { priority_levels: 2, default_priority_level: 2 } }),
  ],
  [
    'priority-level-range',
    onnx({ dynamic_batching: { priority_levels: 2, default_priority_level: 1, priority_queue_policy: { '3': {} } } }),
    onnx({ dynamic_batching: { priority_levels: 2, default_priority_level: 1, priority_queue_policy: { '2': {} } } }),
  ],
  [
    'preserve-ordering-priority',
    onnx({ dynamic_batching: { priority_levels: 2, default_priority_level: 1, preserve_ordering: true } }),
    onnx({ dynamic_batching: { priority_levels: 1, default_priority_level: 1, preserve_ordering: true } }),
  ],
  [
    'preserve-ordering-delay',
    onnx({
      dynamic_batching: {
        preserve_ordering: true,
        default_queue_policy: { timeout_action: 'DELAY', default_timeout_microseconds: 100 },
      },
    }),
    onnx({
      dynamic_batching: {
        preserve_ordering: false,
        default_queue_policy: { timeout_action: 'DELAY', default_timeout_microseconds: 100 },
      },
    }),
  ],
  [
    'preserve-ordering-delay',
    onnx({
      dynamic_batching: {
        preserve_ordering: true,
        priority_queue_policy: { '1': { timeout_action: 'DELAY', default_timeout_microseconds: 5 } },
      },
    }),
    onnx({
      dynamic_batching: {
        preserve_ordering: true,
        default_queue_policy: { timeout_action: 'DELAY', default_timeout_microseconds: 0 },
      },
    }),
  ],
  [
    'preferred-batch-size',
    seq({ oldest: { preferred_batch_size: [9] } }),
    seq({ oldest: { preferred_batch_size: [8] } }),
  ],
  [
    'response-cache-sequence',
    seq({}, { response_cache: { enable: true } }),
    seq({}, { response_cache: { enable: false } }),
  ],
  [
    'response-cache-decoupled',
    onnx({ response_cache: { enable: true }, model_transaction_policy: { decoupled: true } }),
    onnx({ response_cache: { enable: true }, model_transaction_policy: { decoupled: false } }),
  ],
];

describe('scheduling rules', () => checkConfigCases(CASES));
