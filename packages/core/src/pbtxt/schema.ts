/**
 * Triton's `model_config.proto` as data (from the `common` repository's `protobuf/model_config.proto`).
 * Each message is written as proto-like field lines, `[repeated |oneof <group> ]<type> <name> = <n>`,
 * and compiled once into {@link MessageDef}s. Nested messages use dotted names.
 */

export type ScalarKind = 'int32' | 'int64' | 'uint32' | 'uint64' | 'float' | 'double' | 'bool' | 'string' | 'bytes';

export type FieldType =
  | { kind: 'scalar'; scalar: ScalarKind }
  | { kind: 'enum'; enum: string }
  | { kind: 'message'; message: string }
  | { kind: 'map'; key: ScalarKind; value: FieldType };

export interface FieldDef {
  name: string;
  number: number;
  type: FieldType;
  /** True for `repeated` fields; map fields are repeated entries but have `repeated: false` and `type.kind === 'map'`. */
  repeated: boolean;
  oneof?: string;
}

export interface MessageDef {
  name: string;
  fields: FieldDef[];
  byName: Map<string, FieldDef>;
}

/** Enum value names, indexed by their number (all Triton enums are dense from 0). */
export const ENUMS: Record<string, readonly string[]> = {
  DataType: [
    'TYPE_INVALID',
    'TYPE_BOOL',
    'TYPE_UINT8',
    'TYPE_UINT16',
    'TYPE_UINT32',
    'TYPE_UINT64',
    'TYPE_INT8',
    'TYPE_INT16',
    'TYPE_INT32',
    'TYPE_INT64',
    'TYPE_FP16',
    'TYPE_FP32',
    'TYPE_FP64',
    'TYPE_STRING',
    'TYPE_BF16',
  ],
  'ModelInstanceGroup.Kind': ['KIND_AUTO', 'KIND_GPU', 'KIND_CPU', 'KIND_MODEL'],
  'ModelInstanceGroup.SecondaryDevice.SecondaryDeviceKind': ['KIND_NVDLA'],
  'ModelInput.Format': ['FORMAT_NONE', 'FORMAT_NHWC', 'FORMAT_NCHW'],
  'BatchInput.Kind': [
    'BATCH_ELEMENT_COUNT',
    'BATCH_ACCUMULATED_ELEMENT_COUNT',
    'BATCH_ACCUMULATED_ELEMENT_COUNT_WITH_ZERO',
    'BATCH_MAX_ELEMENT_COUNT_AS_SHAPE',
    'BATCH_ITEM_SHAPE',
    'BATCH_ITEM_SHAPE_FLATTEN',
  ],
  'BatchOutput.Kind': ['BATCH_SCATTER_WITH_INPUT_SHAPE'],
  'ModelOptimizationPolicy.ModelPriority': ['PRIORITY_DEFAULT', 'PRIORITY_MAX', 'PRIORITY_MIN'],
  'ModelQueuePolicy.TimeoutAction': ['REJECT', 'DELAY'],
  'ModelSequenceBatching.Control.Kind': [
    'CONTROL_SEQUENCE_START',
    'CONTROL_SEQUENCE_READY',
    'CONTROL_SEQUENCE_END',
    'CONTROL_SEQUENCE_CORRID',
  ],
};

const SOURCE: Record<string, readonly string[]> = {
  ModelConfig: [
    'string name = 1',
    'string platform = 2',
    'string backend = 17',
    'string runtime = 25',
    'ModelVersionPolicy version_policy = 3',
    'int32 max_batch_size = 4',
    'repeated ModelInput input = 5',
    'repeated ModelOutput output = 6',
    'repeated BatchInput batch_input = 20',
    'repeated BatchOutput batch_output = 21',
    'ModelOptimizationPolicy optimization = 12',
    'oneof scheduling_choice ModelDynamicBatching dynamic_batching = 11',
    'oneof scheduling_choice ModelSequenceBatching sequence_batching = 13',
    'oneof scheduling_choice ModelEnsembling ensemble_scheduling = 15',
    'repeated ModelInstanceGroup instance_group = 7',
    'string default_model_filename = 8',
    'map<string,string> cc_model_filenames = 9',
    'map<string,string> metric_tags = 10',
    'map<string,ModelParameter> parameters = 14',
    'repeated ModelWarmup model_warmup = 16',
    'ModelOperations model_operations = 18',
    'ModelTransactionPolicy model_transaction_policy = 19',
    'ModelRepositoryAgents model_repository_agents = 23',
    'ModelResponseCache response_cache = 24',
    'ModelMetrics model_metrics = 26',
  ],
  ModelRateLimiter: ['repeated ModelRateLimiter.Resource resources = 1', 'uint32 priority = 2'],
  'ModelRateLimiter.Resource': ['string name = 1', 'bool global = 2', 'uint32 count = 3'],
  ModelInstanceGroup: [
    'string name = 1',
    'ModelInstanceGroup.Kind kind = 4',
    'int32 count = 2',
    'ModelRateLimiter rate_limiter = 6',
    'repeated int32 gpus = 3',
    'repeated ModelInstanceGroup.SecondaryDevice secondary_devices = 8',
    'repeated string profile = 5',
    'bool passive = 7',
    'string host_policy = 9',
  ],
  'ModelInstanceGroup.SecondaryDevice': [
    'ModelInstanceGroup.SecondaryDevice.SecondaryDeviceKind kind = 1',
    'int64 device_id = 2',
  ],
  ModelTensorReshape: ['repeated int64 shape = 1'],
  ModelInput: [
    'string name = 1',
    'DataType data_type = 2',
    'ModelInput.Format format = 3',
    'repeated int64 dims = 4',
    'ModelTensorReshape reshape = 5',
    'bool is_shape_tensor = 6',
    'bool allow_ragged_batch = 7',
    'bool optional = 8',
    'bool is_non_linear_format_io = 9',
  ],
  ModelOutput: [
    'string name = 1',
    'DataType data_type = 2',
    'repeated int64 dims = 3',
    'ModelTensorReshape reshape = 5',
    'string label_filename = 4',
    'bool is_shape_tensor = 6',
    'bool is_non_linear_format_io = 7',
  ],
  BatchInput: [
    'BatchInput.Kind kind = 1',
    'repeated string target_name = 2',
    'DataType data_type = 3',
    'repeated string source_input = 4',
  ],
  BatchOutput: ['repeated string target_name = 1', 'BatchOutput.Kind kind = 2', 'repeated string source_input = 3'],
  ModelVersionPolicy: [
    'oneof policy_choice ModelVersionPolicy.Latest latest = 1',
    'oneof policy_choice ModelVersionPolicy.All all = 2',
    'oneof policy_choice ModelVersionPolicy.Specific specific = 3',
  ],
  'ModelVersionPolicy.Latest': ['uint32 num_versions = 1'],
  'ModelVersionPolicy.All': [],
  'ModelVersionPolicy.Specific': ['repeated int64 versions = 1'],
  ModelOptimizationPolicy: [
    'ModelOptimizationPolicy.Graph graph = 1',
    'ModelOptimizationPolicy.ModelPriority priority = 2',
    'ModelOptimizationPolicy.Cuda cuda = 3',
    'ModelOptimizationPolicy.ExecutionAccelerators execution_accelerators = 4',
    'ModelOptimizationPolicy.PinnedMemoryBuffer input_pinned_memory = 5',
    'ModelOptimizationPolicy.PinnedMemoryBuffer output_pinned_memory = 6',
    'uint32 gather_kernel_buffer_threshold = 7',
    'bool eager_batching = 8',
  ],
  'ModelOptimizationPolicy.Graph': ['int32 level = 1'],
  'ModelOptimizationPolicy.Cuda': [
    'bool graphs = 1',
    'bool busy_wait_events = 2',
    'repeated ModelOptimizationPolicy.Cuda.GraphSpec graph_spec = 3',
    'bool output_copy_stream = 4',
  ],
  'ModelOptimizationPolicy.Cuda.GraphSpec': [
    'int32 batch_size = 1',
    'map<string,ModelOptimizationPolicy.Cuda.GraphSpec.Shape> input = 2',
    'ModelOptimizationPolicy.Cuda.GraphSpec.LowerBound graph_lower_bound = 3',
  ],
  'ModelOptimizationPolicy.Cuda.GraphSpec.Shape': ['repeated int64 dim = 1'],
  'ModelOptimizationPolicy.Cuda.GraphSpec.LowerBound': [
    'int32 batch_size = 1',
    'map<string,ModelOptimizationPolicy.Cuda.GraphSpec.Shape> input = 2',
  ],
  'ModelOptimizationPolicy.ExecutionAccelerators': [
    'repeated ModelOptimizationPolicy.ExecutionAccelerators.Accelerator gpu_execution_accelerator = 1',
    'repeated ModelOptimizationPolicy.ExecutionAccelerators.Accelerator cpu_execution_accelerator = 2',
  ],
  'ModelOptimizationPolicy.ExecutionAccelerators.Accelerator': ['string name = 1', 'map<string,string> parameters = 2'],
  'ModelOptimizationPolicy.PinnedMemoryBuffer': ['bool enable = 1'],
  ModelQueuePolicy: [
    'ModelQueuePolicy.TimeoutAction timeout_action = 1',
    'uint64 default_timeout_microseconds = 2',
    'bool allow_timeout_override = 3',
    'uint32 max_queue_size = 4',
  ],
  ModelDynamicBatching: [
    'repeated int32 preferred_batch_size = 1',
    'uint64 max_queue_delay_microseconds = 2',
    'bool preserve_ordering = 3',
    'uint64 priority_levels = 4',
    'uint64 default_priority_level = 5',
    'ModelQueuePolicy default_queue_policy = 6',
    'map<uint64,ModelQueuePolicy> priority_queue_policy = 7',
  ],
  ModelSequenceBatching: [
    'oneof strategy_choice ModelSequenceBatching.StrategyDirect direct = 3',
    'oneof strategy_choice ModelSequenceBatching.StrategyOldest oldest = 4',
    'uint64 max_sequence_idle_microseconds = 1',
    'repeated ModelSequenceBatching.ControlInput control_input = 2',
    'repeated ModelSequenceBatching.State state = 5',
    'bool iterative_sequence = 6',
  ],
  'ModelSequenceBatching.Control': [
    'ModelSequenceBatching.Control.Kind kind = 1',
    'repeated int32 int32_false_true = 2',
    'repeated float fp32_false_true = 3',
    'repeated bool bool_false_true = 5',
    'DataType data_type = 4',
  ],
  'ModelSequenceBatching.ControlInput': ['string name = 1', 'repeated ModelSequenceBatching.Control control = 2'],
  'ModelSequenceBatching.InitialState': [
    'DataType data_type = 1',
    'repeated int64 dims = 2',
    'oneof state_data bool zero_data = 3',
    'oneof state_data string data_file = 4',
    'string name = 5',
  ],
  'ModelSequenceBatching.State': [
    'string input_name = 1',
    'string output_name = 2',
    'DataType data_type = 3',
    'repeated int64 dims = 4',
    'repeated ModelSequenceBatching.InitialState initial_state = 5',
    'bool use_same_buffer_for_input_output = 6',
    'bool use_growable_memory = 7',
  ],
  'ModelSequenceBatching.StrategyDirect': [
    'uint64 max_queue_delay_microseconds = 1',
    'float minimum_slot_utilization = 2',
  ],
  'ModelSequenceBatching.StrategyOldest': [
    'int32 max_candidate_sequences = 1',
    'repeated int32 preferred_batch_size = 2',
    'uint64 max_queue_delay_microseconds = 3',
    'bool preserve_ordering = 4',
  ],
  // Field 2 is `max_inflight_requests` in TRITON.md and older protos, `max_inflight_responses` in newer ones:
  // both spellings are accepted (they share a oneof so only one may be given).
  ModelEnsembling: [
    'repeated ModelEnsembling.Step step = 1',
    'oneof max_inflight uint32 max_inflight_requests = 2',
    'oneof max_inflight uint32 max_inflight_responses = 2',
  ],
  'ModelEnsembling.Step': [
    'string model_name = 1',
    'int64 model_version = 2',
    'map<string,string> input_map = 3',
    'map<string,string> output_map = 4',
    'string model_namespace = 5',
  ],
  ModelParameter: ['string string_value = 1'],
  ModelWarmup: [
    'string name = 1',
    'uint32 batch_size = 2',
    'map<string,ModelWarmup.Input> inputs = 3',
    'uint32 count = 4',
  ],
  'ModelWarmup.Input': [
    'DataType data_type = 1',
    'repeated int64 dims = 2',
    'oneof input_data_type bool zero_data = 3',
    'oneof input_data_type bool random_data = 4',
    'oneof input_data_type string input_data_file = 5',
  ],
  ModelOperations: ['repeated string op_library_filename = 1'],
  ModelTransactionPolicy: ['bool decoupled = 1'],
  ModelRepositoryAgents: ['repeated ModelRepositoryAgents.Agent agents = 1'],
  'ModelRepositoryAgents.Agent': ['string name = 1', 'map<string,string> parameters = 2'],
  ModelResponseCache: ['bool enable = 1'],
  ModelMetrics: ['repeated ModelMetrics.MetricControl metric_control = 1'],
  'ModelMetrics.MetricControl': [
    'ModelMetrics.MetricControl.MetricIdentifier metric_identifier = 1',
    'oneof metric_options ModelMetrics.MetricControl.HistogramOptions histogram_options = 2',
  ],
  'ModelMetrics.MetricControl.MetricIdentifier': ['string family = 1'],
  'ModelMetrics.MetricControl.HistogramOptions': ['repeated double buckets = 1'],
};

const SCALARS = new Set<string>(['int32', 'int64', 'uint32', 'uint64', 'float', 'double', 'bool', 'string', 'bytes']);

function typeOf(spec: string): FieldType {
  const map = /^map<(\w+),([\w.]+)>$/.exec(spec);
  if (map) return { kind: 'map', key: map[1] as ScalarKind, value: typeOf(map[2] ?? '') };
  if (SCALARS.has(spec)) return { kind: 'scalar', scalar: spec as ScalarKind };
  if (spec in ENUMS) return { kind: 'enum', enum: spec };
  if (spec in SOURCE) return { kind: 'message', message: spec };
  throw new Error(`schema: unknown type ${spec}`);
}

function compileField(line: string): FieldDef {
  const m = /^(repeated |oneof (\w+) )?(\S+) (\w+) = (\d+)$/.exec(line);
  if (!m) throw new Error(`schema: bad field line ${line}`);
  const field: FieldDef = {
    name: m[4] ?? '',
    number: Number(m[5]),
    type: typeOf(m[3] ?? ''),
    repeated: m[1] === 'repeated ',
  };
  if (m[2]) field.oneof = m[2];
  return field;
}

/** Every message of model_config.proto, by (dotted) name, e.g. `ModelSequenceBatching.Control`. */
const MESSAGES: Record<string, MessageDef> = Object.fromEntries(
  Object.entries(SOURCE).map(([name, lines]) => {
    const fields = lines.map(compileField);
    return [name, { name, fields, byName: new Map(fields.map((f) => [f.name, f])) }];
  }),
);

/**
 * The message definition for `name`; throws on a name the schema does not have (a programming error).
 * @example messageDef('ModelInput').byName.get('dims')?.number === 4
 */
export function messageDef(name: string): MessageDef {
  const def = MESSAGES[name];
  if (!def) throw new Error(`schema: unknown message ${name}`);
  return def;
}
