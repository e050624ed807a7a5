import type { Catalogue, CatalogueModel, TensorSpec } from '../catalogue/types.ts';
import type { ModelConfig } from '../pbtxt/modelConfig.ts';
import { toConfigType, type DataType } from '../tensor/dtype.ts';
import { GRAPH_VERSION } from '../graph/types.ts';
import type { ConditionNode, GraphDoc, GraphEdge, GraphNode, ModelSettings, OpId, RouterMode } from '../graph/types.ts';
import { deepFreeze } from './deepFreeze.ts';

// Small graph fixtures for tests (core, store, server): a tiny catalogue of Triton-like models
// and a builder with domain verbs. Not used by production code.

const t = (name: string, datatype: DataType, dims: number[], optional?: boolean): TensorSpec =>
  optional ? { name, datatype, dims, optional } : { name, datatype, dims };

function model(
  name: string,
  maxBatchSize: number,
  inputs: TensorSpec[],
  outputs: TensorSpec[],
  extra: Partial<CatalogueModel> = {},
  config: Partial<ModelConfig> = {},
): CatalogueModel {
  const io = (s: TensorSpec) => ({
    name: s.name,
    data_type: toConfigType(s.datatype),
    dims: s.dims,
    ...(s.optional ? { optional: true } : {}),
  });
  return {
    name,
    versions: [1],
    platform: 'onnxruntime_onnx',
    backend: 'onnxruntime',
    maxBatchSize,
    inputs,
    outputs,
    decoupled: false,
    config: {
      name,
      platform: 'onnxruntime_onnx',
      max_batch_size: maxBatchSize,
      input: inputs.map(io),
      output: outputs.map(io),
      ...config,
    },
    ...extra,
  };
}

/** A tiny catalogue: `simple` (qa add/sub, INT32 [16], mbs 8), `identity` (FP32 [-1], mbs 4), … */
export function fixtureCatalogue(): Catalogue {
  const models: CatalogueModel[] = [
    model(
      'simple',
      8,
      [t('INPUT0', 'INT32', [16]), t('INPUT1', 'INT32', [16])],
      [t('OUTPUT0', 'INT32', [16]), t('OUTPUT1', 'INT32', [16])],
    ),
    model('identity', 4, [t('INPUT0', 'FP32', [-1])], [t('OUTPUT0', 'FP32', [-1])]),
    model('small_batch', 2, [t('INPUT0', 'FP32', [-1])], [t('OUTPUT0', 'FP32', [-1])]),
    model('nobatch', 0, [t('INPUT0', 'FP32', [-1, 4])], [t('OUTPUT0', 'FP32', [-1, 4])]),
    model('optional_in', 4, [t('INPUT0', 'FP32', [-1]), t('INPUT1', 'FP32', [-1], true)], [t('OUTPUT0', 'FP32', [-1])]),
    model(
      'repeat',
      0,
      [t('IN', 'FP32', [-1])],
      [t('OUT', 'FP32', [-1])],
      { decoupled: true },
      { model_transaction_policy: { decoupled: true } },
    ),
    model(
      'vad',
      1,
      [t('input', 'FP32', [-1]), t('sr', 'INT64', [1])],
      [t('output', 'FP32', [1])],
      {},
      {
        sequence_batching: {
          state: [{ input_name: 'state', output_name: 'stateN', data_type: 'TYPE_FP32', dims: [2, -1, 128] }],
        },
      },
    ),
    model('det', 0, [t('x', 'FP32', [1, 3, -1, -1])], [t('prob', 'FP32', [1, 1, -1, -1])]),
    model('rec', 0, [t('x', 'FP32', [-1, 3, 48, -1])], [t('probs', 'FP32', [-1, -1, -1])]),
    model('broken', 0, [t('x', 'FP32', [1])], [t('y', 'FP32', [1])], { error: 'failed to load model.onnx' }),
  ];
  return { models: Object.fromEntries(models.map((m) => [m.name, m])) };
}

/** Builder with domain verbs; every verb returns the builder, `doc()` the GraphDoc. */
export class GraphFixture {
  readonly nodes: GraphNode[] = [];
  readonly edges: GraphEdge[] = [];
  private edgeCount = 0;
  constructor(
    readonly name = 'ens',
    readonly maxBatchSize = 0,
  ) {}

  private add(node: GraphNode): this {
    this.nodes.push(node);
    return this;
  }
  /** An ensemble input; node id = tensor name unless `id` is given. */
  input(name: string, datatype: DataType, dims: number[], opts: { id?: string; optional?: boolean } = {}): this {
    return this.add({
      id: opts.id ?? name,
      kind: 'input',
      position: { x: 0, y: 0 },
      params: { name, datatype, dims, ...(opts.optional ? { optional: true } : {}) },
    });
  }
  /** An ensemble output; node id = tensor name unless `id` is given. */
  output(name: string, datatype: DataType, dims: number[], opts: { id?: string } = {}): this {
    return this.add({
      id: opts.id ?? name,
      kind: 'output',
      position: { x: 0, y: 0 },
      params: { name, datatype, dims },
    });
  }
  model(id: string, modelName: string, settings?: ModelSettings): this {
    return this.add({
      id,
      kind: 'model',
      position: { x: 0, y: 0 },
      params: { model: modelName, ...(settings ? { settings } : {}) },
    });
  }
  router(id: string, count = 2, mode: RouterMode = 'copy'): this {
    return this.add({ id, kind: 'router', position: { x: 0, y: 0 }, params: { mode, count } });
  }
  condition(id: string, params: Partial<ConditionNode['params']> & { ports: string[] }): this {
    return this.add({
      id,
      kind: 'condition',
      position: { x: 0, y: 0 },
      params: { expression: 'len(boxes) == 0', strategy: 'gate', message: 'ended early', defaults: {}, ...params },
    });
  }
  op(id: string, op: OpId, values: Record<string, number | string | boolean> = {}): this {
    return this.add({ id, kind: 'op', position: { x: 0, y: 0 }, params: { op, values } });
  }
  /** Edge `source.sourcePort → target.targetPort`; id `e1`, `e2`, … unless given. */
  wire(source: string, sourcePort: string, target: string, targetPort: string, id?: string): this {
    this.edges.push({ id: id ?? `e${++this.edgeCount}`, source, sourcePort, target, targetPort });
    return this;
  }
  /** An input node's `out` into `target.port`. */
  feed(input: string, target: string, port: string): this {
    return this.wire(input, 'out', target, port);
  }
  /** `source.port` into an output node's `in`. */
  emit(source: string, port: string, output: string): this {
    return this.wire(source, port, output, 'in');
  }
  /** The document, deep-frozen: code under test that writes to a document it was handed throws. */
  doc(): GraphDoc {
    const doc: GraphDoc = {
      version: GRAPH_VERSION,
      name: this.name,
      maxBatchSize: this.maxBatchSize,
      nodes: [...this.nodes],
      edges: [...this.edges],
    };
    return deepFreeze(doc) as GraphDoc;
  }
}

/**
 * A fixture builder.
 * @example graphFixture('e', 8).input('A', 'INT32', [16]).model('s', 'simple').feed('A', 's', 'INPUT0').doc()
 */
export function graphFixture(name = 'ens', maxBatchSize = 0): GraphFixture {
  return new GraphFixture(name, maxBatchSize);
}

/**
 * The qa `ensemble_partial_add_sub`-like graph: INPUT0/INPUT1 → simple → OUTPUT0/OUTPUT1, valid.
 * @example validateGraph(addSubGraph(), fixtureCatalogue()) // []
 */
export function addSubGraph(): GraphDoc {
  return graphFixture('add_sub', 8)
    .input('INPUT0', 'INT32', [16])
    .input('INPUT1', 'INT32', [16])
    .model('simple', 'simple')
    .output('OUTPUT0', 'INT32', [16])
    .output('OUTPUT1', 'INT32', [16])
    .feed('INPUT0', 'simple', 'INPUT0')
    .feed('INPUT1', 'simple', 'INPUT1')
    .emit('simple', 'OUTPUT0', 'OUTPUT0')
    .emit('simple', 'OUTPUT1', 'OUTPUT1')
    .doc();
}
