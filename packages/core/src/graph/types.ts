import type { DataType } from '../tensor/dtype.ts';
import type { ModelConfig } from '../pbtxt/modelConfig.ts';
import type { DeepReadonly } from './readonly.ts';

export type { DeepReadonly } from './readonly.ts';

/** Current graph document version; `schema/migrate.ts` brings older documents up to it. */
export const GRAPH_VERSION = 1;

export type NodeKind = 'input' | 'output' | 'model' | 'router' | 'condition' | 'op';
export type RouterMode = 'copy' | 'direct';
export type ConditionStrategy = 'gate' | 'bls' | 'error';
export type OpId = 'image_preprocess' | 'db_postprocess' | 'crop_resize' | 'ctc_decode' | 'topk' | 'audio_frame';

export interface XY {
  x: number;
  y: number;
}

/** One ensemble: the saved, validated, compiled and undone document. */
export interface GraphDoc {
  readonly version: number;
  /** The ensemble's model name (a valid Triton name). */
  readonly name: string;
  readonly description?: string;
  /** The ensemble's max_batch_size (0 = no batching). */
  readonly maxBatchSize: number;
  readonly nodes: readonly GraphNode[];
  readonly edges: readonly GraphEdge[];
}

/** An edge connects an output port (`sourcePort`) to an input port (`targetPort`). Ports are named. */
export interface GraphEdge {
  readonly id: string;
  readonly source: string;
  readonly sourcePort: string;
  readonly target: string;
  readonly targetPort: string;
}

interface NodeBase<K extends NodeKind, P> {
  readonly id: string;
  readonly kind: K;
  readonly position: Readonly<XY>;
  /** Display label; defaults to the kind/model name. */
  readonly label?: string;
  readonly params: DeepReadonly<P>;
}

/** An ensemble input tensor. Single output port `out`. `dims` exclude the batch dim. */
export type InputNode = NodeBase<'input', { name: string; datatype: DataType; dims: number[]; optional?: boolean }>;
/** An ensemble output tensor. Single input port `in`. `dims` exclude the batch dim. */
export type OutputNode = NodeBase<'output', { name: string; datatype: DataType; dims: number[] }>;

/** Settings a model node edits in that model's config.pbtxt. Absent = keep the repository's value. */
export interface ModelSettings {
  max_batch_size?: number;
  instance_group?: ModelConfig['instance_group'];
  dynamic_batching?: ModelConfig['dynamic_batching'] | null; // null = remove
  sequence_batching?: ModelConfig['sequence_batching'] | null;
  decoupled?: boolean;
}
/** A node's settings as code that reads a document sees them (documents are shared: never written in place). */
export type NodeSettings = DeepReadonly<ModelSettings>;

/** A model of the repository; ports are that model's inputs/outputs (from the catalogue). */
export type ModelNode = NodeBase<'model', { model: string; settings?: ModelSettings }>;

/** Fans input port `in` out to `count` output ports `out_0 … out_{count-1}`. */
export type RouterNode = NodeBase<'router', { mode: RouterMode; count: number }>;

/** A default value for one ensemble output when the pipeline ends early (bls strategy). */
export interface DefaultOutput {
  shape: number[];
  data: (number | string | boolean)[];
}

/**
 * Evaluates `expression` over its input ports. Each name in `ports` is both an input and an
 * output port: tensors pass through the condition (so with `gate`, everything that crosses the
 * condition flows through it, as Triton requires).
 */
export type ConditionNode = NodeBase<
  'condition',
  {
    expression: string;
    strategy: ConditionStrategy;
    ports: string[];
    /** Error message for the `error` strategy. */
    message: string;
    /** bls: values returned for ensemble outputs on exit; outputs not listed are empty tensors. */
    defaults: Record<string, DefaultOutput>;
  }
>;

/** A built-in pre/post-processing step; ports and params come from its OpDef. */
export type OpNode = NodeBase<'op', { op: OpId; values: Record<string, number | string | boolean> }>;

export type GraphNode = InputNode | OutputNode | ModelNode | RouterNode | ConditionNode | OpNode;
export type NodeOfKind<K extends NodeKind> = Extract<GraphNode, { kind: K }>;
