import type { DataType } from '../tensor/dtype.ts';
import type { ModelConfig } from '../pbtxt/modelConfig.ts';

/** A tensor signature as declared in config (dims exclude the implied batch dimension). */
export interface TensorSpec {
  name: string;
  datatype: DataType;
  /** Dims as written in config.pbtxt (`-1` = variable); the batch dim is NOT included. */
  dims: number[];
  optional?: boolean;
}

/** What the server knows about one model of the repository. */
export interface CatalogueModel {
  name: string;
  versions: number[];
  /** `onnxruntime_onnx`, `ensemble`, or '' when only a backend is set. */
  platform: string;
  backend: string;
  maxBatchSize: number;
  inputs: TensorSpec[];
  outputs: TensorSpec[];
  decoupled: boolean;
  /** The full parsed (and auto-completed) config. */
  config: ModelConfig;
  /** Set when the model is one the studio generated (router/gate/op/bls), from its parameters marker. */
  generated?: { kind: string; [key: string]: unknown };
  /** Load problems (missing file, bad config) — the model is listed but unavailable. */
  error?: string;
}

export interface Catalogue {
  /** Keyed by model name, which is user text: read it through `catalogueModel`, never by indexing. */
  models: Record<string, CatalogueModel>;
}

/**
 * The catalogue's model of that name, or undefined. Names come from users, so `constructor` or
 * `__proto__` must find nothing rather than a property every object inherits.
 * @example catalogueModel(catalogue, 'det')?.inputs
 */
export function catalogueModel(catalogue: Catalogue, name: string): CatalogueModel | undefined {
  return ownValue(catalogue.models, name);
}

/**
 * The own property `key` of a record keyed by user text, or undefined (never an inherited one).
 * @example ownValue(repo.graphs, 'toString') === undefined
 */
export function ownValue<T>(record: Readonly<Record<string, T>>, key: string): T | undefined {
  return Object.hasOwn(record, key) ? record[key] : undefined;
}

/**
 * An empty record for user-chosen keys: no prototype, so no name is ever inherited, and storing
 * `__proto__` stores a key instead of replacing the prototype.
 * @example const models = keyedRecord<CatalogueModel>(); models['__proto__'] = m
 */
export function keyedRecord<T>(): Record<string, T> {
  return Object.create(null) as Record<string, T>;
}

/** Full shape of a port as Triton sees it: `[-1, ...dims]` when max_batch_size > 0. */
export function fullShape(dims: readonly number[], maxBatchSize: number): number[] {
  return maxBatchSize > 0 ? [-1, ...dims] : [...dims];
}
