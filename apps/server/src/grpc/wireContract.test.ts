// The field numbers Triton's clients put on the wire, written down independently of our .proto: a field
// renumbered or renamed there breaks every client silently, and this test names it.
import { loadSync } from '@grpc/proto-loader';
import { describe, expect, it } from 'vitest';
import { PROTO_DIR, PROTO_OPTIONS } from './loadService.ts';

interface Descriptor {
  name?: string;
  field?: { name: string; number: number }[];
  value?: { name: string; number: number }[];
  nestedType?: Descriptor[];
}
const def = loadSync(`${PROTO_DIR}/grpc_service.proto`, PROTO_OPTIONS) as unknown as Record<
  string,
  { type: Descriptor }
>;
/** `A.B` is message B nested in A. */
function descriptor(path: string): Descriptor | undefined {
  const [top, ...nested] = path.split('.');
  let d: Descriptor | undefined = def[`inference.${top}`]?.type;
  for (const n of nested) d = d?.nestedType?.find((t) => t.name === n);
  return d;
}
const fields = (message: string) => (descriptor(message)?.field ?? []).map((f) => `${f.name}=${f.number}`).sort();
const values = (e: string) => (descriptor(e)?.value ?? []).map((v) => `${v.name}=${v.number}`).sort();
const sorted = (s: string) => s.split(' ').sort();

const CONTRACT: Record<string, string> = {
  ModelReadyRequest: 'name=1 version=2',
  ServerMetadataResponse: 'name=1 version=2 extensions=3',
  ModelMetadataResponse: 'name=1 versions=2 platform=3 inputs=4 outputs=5',
  'ModelMetadataResponse.TensorMetadata': 'name=1 datatype=2 shape=3',
  InferParameter: 'bool_param=1 int64_param=2 string_param=3 double_param=4 uint64_param=5',
  InferTensorContents:
    'bool_contents=1 int_contents=2 int64_contents=3 uint_contents=4 uint64_contents=5 fp32_contents=6 fp64_contents=7 bytes_contents=8',
  ModelInferRequest: 'model_name=1 model_version=2 id=3 parameters=4 inputs=5 outputs=6 raw_input_contents=7',
  'ModelInferRequest.InferInputTensor': 'name=1 datatype=2 shape=3 parameters=4 contents=5',
  'ModelInferRequest.InferRequestedOutputTensor': 'name=1 parameters=2',
  ModelInferResponse: 'model_name=1 model_version=2 id=3 parameters=4 outputs=5 raw_output_contents=6',
  'ModelInferResponse.InferOutputTensor': 'name=1 datatype=2 shape=3 parameters=4 contents=5',
  ModelStreamInferResponse: 'error_message=1 infer_response=2',
  ModelConfigResponse: 'config=1',
  StatisticDuration: 'count=1 ns=2',
  ModelStatistics:
    'name=1 version=2 last_inference=3 inference_count=4 execution_count=5 inference_stats=6 batch_stats=7 memory_usage=8 response_stats=9',
  'RepositoryIndexResponse.ModelIndex': 'name=1 version=2 state=3 reason=4',
  RepositoryModelLoadRequest: 'repository_name=1 model_name=2 parameters=3',
  ModelInput:
    'name=1 data_type=2 format=3 dims=4 reshape=5 is_shape_tensor=6 allow_ragged_batch=7 optional=8 is_non_linear_format_io=9',
  ModelOutput: 'name=1 data_type=2 dims=3 label_filename=4 reshape=5 is_shape_tensor=6 is_non_linear_format_io=7',
  ModelTransactionPolicy: 'decoupled=1',
  'ModelEnsembling.Step': 'model_name=1 model_version=2 input_map=3 output_map=4 model_namespace=5',
};

describe('the gRPC wire contract', () => {
  it.each(Object.entries(CONTRACT))("%s has the field numbers Triton's clients use", (message, expected) => {
    expect(fields(message)).toEqual(sorted(expected));
  });

  it('ModelConfig: the fields a client reads keep their numbers', () => {
    const got = new Set(fields('ModelConfig'));
    for (const f of sorted(
      'name=1 platform=2 version_policy=3 max_batch_size=4 input=5 output=6 instance_group=7 dynamic_batching=11 sequence_batching=13 parameters=14 ensemble_scheduling=15 backend=17 model_transaction_policy=19 runtime=25',
    )) {
      expect(got, f).toContain(f);
    }
  });

  it('DataType enum values', () => {
    expect(values('DataType')).toEqual(
      sorted(
        'TYPE_INVALID=0 TYPE_BOOL=1 TYPE_UINT8=2 TYPE_UINT16=3 TYPE_UINT32=4 TYPE_UINT64=5 TYPE_INT8=6 TYPE_INT16=7 TYPE_INT32=8 TYPE_INT64=9 TYPE_FP16=10 TYPE_FP32=11 TYPE_FP64=12 TYPE_STRING=13 TYPE_BF16=14',
      ),
    );
  });
});
