/**
 * Triton's ModelConfig as a plain JSON value, with proto field names (snake_case) exactly as
 * `/v2/models/{m}/config` prints them. Enums are their names; int64 are numbers; maps are objects.
 * Only the fields the studio reads are typed; everything else is kept under its own name by the
 * text-format parser (`[key: string]: unknown`) so a repository opened and saved loses nothing.
 */
export interface ModelConfig {
  name?: string;
  platform?: string;
  backend?: string;
  runtime?: string;
  max_batch_size?: number;
  input?: ModelInput[];
  output?: ModelOutput[];
  instance_group?: InstanceGroup[];
  dynamic_batching?: DynamicBatching;
  sequence_batching?: SequenceBatching;
  ensemble_scheduling?: { step?: EnsembleStep[]; max_inflight_requests?: number; [key: string]: unknown };
  parameters?: Record<string, { string_value?: string }>;
  model_transaction_policy?: { decoupled?: boolean };
  /** Triton's response cache: the model's responses kept by their requests' inputs when the server has a cache. */
  response_cache?: { enable?: boolean };
  default_model_filename?: string;
  version_policy?: {
    latest?: { num_versions?: number };
    all?: Record<string, never>;
    specific?: { versions?: number[] };
  };
  model_warmup?: ModelWarmup[];
  [key: string]: unknown;
}

export interface ModelInput {
  name: string;
  data_type: string; // TYPE_FP32 …
  dims: number[];
  format?: string;
  reshape?: { shape?: number[] };
  optional?: boolean;
  allow_ragged_batch?: boolean;
  [key: string]: unknown;
}

export interface ModelOutput {
  name: string;
  data_type: string;
  dims: number[];
  reshape?: { shape?: number[] };
  label_filename?: string;
  [key: string]: unknown;
}

export interface InstanceGroup {
  name?: string;
  kind?: 'KIND_AUTO' | 'KIND_GPU' | 'KIND_CPU' | 'KIND_MODEL';
  count?: number;
  gpus?: number[];
  [key: string]: unknown;
}

export interface DynamicBatching {
  preferred_batch_size?: number[];
  max_queue_delay_microseconds?: number;
  preserve_ordering?: boolean;
  [key: string]: unknown;
}

export interface SequenceControl {
  kind: 'CONTROL_SEQUENCE_START' | 'CONTROL_SEQUENCE_READY' | 'CONTROL_SEQUENCE_END' | 'CONTROL_SEQUENCE_CORRID';
  int32_false_true?: number[];
  fp32_false_true?: number[];
  bool_false_true?: boolean[];
  data_type?: string;
}

export interface SequenceState {
  input_name: string;
  output_name: string;
  data_type: string;
  dims: number[];
  initial_state?: { data_type: string; dims: number[]; zero_data?: boolean; data_file?: string; name: string }[];
  [key: string]: unknown;
}

export interface SequenceBatching {
  max_sequence_idle_microseconds?: number;
  control_input?: { name: string; control: SequenceControl[] }[];
  direct?: { max_queue_delay_microseconds?: number; minimum_slot_utilization?: number };
  oldest?: {
    max_candidate_sequences?: number;
    preferred_batch_size?: number[];
    max_queue_delay_microseconds?: number;
    preserve_ordering?: boolean;
  };
  state?: SequenceState[];
  [key: string]: unknown;
}

export interface EnsembleStep {
  model_name: string;
  model_version?: number;
  input_map?: Record<string, string>;
  output_map?: Record<string, string>;
  [key: string]: unknown;
}

export interface ModelWarmup {
  name: string;
  batch_size?: number;
  inputs?: Record<
    string,
    { data_type: string; dims: number[]; zero_data?: boolean; random_data?: boolean; input_data_file?: string }
  >;
  count?: number;
  [key: string]: unknown;
}

/** The `parameters` key that marks a model the studio generated, and its JSON value. */
export const STUDIO_MARKER = 'ensemble_studio';
