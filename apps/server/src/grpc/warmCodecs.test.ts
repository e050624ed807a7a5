// warmCodecs: protobufjs generates each message type's encoder, decoder and converters (with `Function`) the first
// time the type is met; after the warm-up a server's first requests and responses must generate nothing.
import { describe, expect, it } from 'vitest';
import { inferenceService } from './loadService.ts';
import { warmCodecs } from './warmCodecs.ts';

/** How many functions `fn` had built from source (protobufjs's codegen calls the global `Function`). */
function functionsGenerated(fn: () => void): number {
  const original = globalThis.Function;
  let count = 0;
  globalThis.Function = new Proxy(original, {
    apply: (target, self, args: string[]) => (count++, Reflect.apply(target, self, args)),
    construct: (target, args: string[]) => (count++, Reflect.construct(target, args)),
  });
  try {
    fn();
  } finally {
    globalThis.Function = original;
  }
  return count;
}

const f32 = Buffer.from(new Float32Array([0.5, 1.5]).buffer);

/** Messages a server decodes (requests) and encodes (responses) in its first minutes, as clients send them. */
const REQUESTS: [string, object][] = [
  [
    'ModelInfer',
    {
      model_name: 'extractor',
      id: 'r1',
      parameters: {
        sequence_id: { int64_param: '7' },
        sequence_start: { bool_param: true },
        tag: { string_param: 's' },
      },
      inputs: [{ name: 'x', datatype: 'FP32', shape: ['1', '2'], parameters: { binary: { bool_param: false } } }],
      outputs: [{ name: 'y', parameters: { classification: { int64_param: '2' } } }],
      raw_input_contents: [f32],
    },
  ],
  [
    'ModelInfer',
    { model_name: 'm', inputs: [{ name: 's', datatype: 'BYTES', shape: ['1'], contents: { bytes_contents: [f32] } }] },
  ],
  ['ModelConfig', { name: 'ocr', version: '' }],
  ['RepositoryModelLoad', { model_name: 'm', parameters: { config: { string_param: '{}' } } }],
];
const RESPONSES: [string, object][] = [
  [
    'ModelInfer',
    {
      model_name: 'extractor',
      model_version: '1',
      id: 'r1',
      parameters: { sequence_id: { uint64_param: '7' } },
      outputs: [{ name: 'y', datatype: 'FP32', shape: ['1', '2'], contents: { fp32_contents: [1] } }],
      raw_output_contents: [f32],
    },
  ],
  ['ModelStreamInfer', { error_message: 'refused', infer_response: { model_name: 'm', outputs: [] } }],
  [
    'ModelConfig',
    {
      config: {
        name: 'ocr',
        platform: 'ensemble',
        max_batch_size: 8,
        input: [{ name: 'image', data_type: 'TYPE_UINT8', dims: ['-1', '-1', '3'] }],
        output: [{ name: 'text', data_type: 'TYPE_STRING', dims: ['-1'] }],
        ensemble_scheduling: { step: [{ model_name: 'det', model_version: '-1', input_map: { a: 'b' } }] },
        instance_group: [{ kind: 'KIND_CPU', count: 2 }],
        sequence_batching: { control_input: [{ name: 'START', control: [{ kind: 'CONTROL_SEQUENCE_START' }] }] },
        parameters: { k: { string_value: 'v' } },
      },
    },
  ],
  [
    'ModelMetadata',
    { name: 'ocr', versions: ['1'], platform: 'ensemble', inputs: [{ name: 'x', datatype: 'FP32', shape: ['1'] }] },
  ],
  ['RepositoryIndex', { models: [{ name: 'ocr', version: '1', state: 'READY', reason: '' }] }],
  [
    'ModelStatistics',
    {
      model_stats: [
        {
          name: 'ocr',
          inference_stats: { success: { count: '1', ns: '5' } },
          batch_stats: [{ batch_size: '1', compute_infer: { count: '1', ns: '2' } }],
        },
      ],
    },
  ],
];

describe('warmCodecs', () => {
  it("generates every message type's code up front, so a server's first messages generate none", () => {
    const { definition, service } = inferenceService();
    // What the first client would otherwise have paid, on the main thread, for its first message of each kind.
    expect(functionsGenerated(() => warmCodecs(definition, service))).toBeGreaterThan(50);
    const generated = functionsGenerated(() => {
      for (const [name, message] of REQUESTS)
        service[name]!.requestDeserialize(service[name]!.requestSerialize(message));
      for (const [name, message] of RESPONSES)
        service[name]!.responseDeserialize(service[name]!.responseSerialize(message));
    });
    expect(generated).toBe(0);
  });

  it('leaves the messages as they were: a request decodes to what was encoded', () => {
    const { definition, service } = inferenceService();
    warmCodecs(definition, service);
    const method = service.ModelInfer!;
    const decoded = method.requestDeserialize(method.requestSerialize(REQUESTS[0]![1]));
    expect(decoded).toMatchObject({ model_name: 'extractor', id: 'r1', inputs: [{ name: 'x', shape: ['1', '2'] }] });
    expect(decoded.parameters.sequence_id).toMatchObject({ int64_param: '7', parameter_choice: 'int64_param' });
  });
});
