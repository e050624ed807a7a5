/**
 * A model node's settings override its catalogue model's config: the one place that rule is written.
 * The validator, the compiler, the engine, the server's signatures and the editor's forms all read a
 * node's model through these functions, so what is checked is what is exported and what runs.
 */
import { catalogueModel, type Catalogue, type CatalogueModel } from '../catalogue/types.ts';
import type { DeepReadonly } from '../graph/readonly.ts';
import type { ModelNode, NodeSettings } from '../graph/types.ts';
import type { DynamicBatching, InstanceGroup, ModelConfig, SequenceBatching } from '../pbtxt/modelConfig.ts';
import { clone } from '../pbtxt/normalizeConfig.ts';
import { canonicalJson } from './canonicalJson.ts';

/** The scheduling fields a node's settings can override, as the model runs with them. */
export interface ModelScheduling {
  maxBatchSize: number;
  decoupled: boolean;
  instanceGroup: DeepReadonly<InstanceGroup[]> | undefined;
  dynamicBatching: DeepReadonly<DynamicBatching> | undefined;
  sequenceBatching: DeepReadonly<SequenceBatching> | undefined;
}

/** A fresh, writable copy of part of a document, to build a config from. */
const writable = <T>(v: DeepReadonly<T>): T => clone(v) as T;

/**
 * `config`'s scheduling with `settings` applied: a set field replaces the config's and `null` removes a
 * scheduler. Setting one scheduler does not drop the other (a stateful model would silently lose its
 * state): the validator reports the pair, and the node removes one with `null`. Reads only: nothing is
 * copied, so callers must not change what it returns.
 * @example schedulingOf(vad.config, { sequence_batching: null }).sequenceBatching === undefined
 */
export function schedulingOf(config: DeepReadonly<ModelConfig>, settings: NodeSettings = {}): ModelScheduling {
  const { dynamic_batching: dyn, sequence_batching: seq } = settings;
  return {
    maxBatchSize: settings.max_batch_size ?? config.max_batch_size ?? 0,
    decoupled: settings.decoupled ?? config.model_transaction_policy?.decoupled === true,
    instanceGroup: settings.instance_group ?? config.instance_group,
    dynamicBatching: dyn === null ? undefined : (dyn ?? config.dynamic_batching),
    sequenceBatching: seq === null ? undefined : (seq ?? config.sequence_batching),
  };
}

/**
 * A catalogue model's config with a node's settings applied (see `schedulingOf`), as the compiler writes
 * it and the engine runs it. A fresh copy; the name is always the model's (directory) name.
 * @example applySettings(catalogue.models.det!, { max_batch_size: 4 }).max_batch_size === 4
 */
export function applySettings(model: CatalogueModel, settings: NodeSettings | undefined): ModelConfig {
  const config: ModelConfig = clone(model.config);
  config.name = model.name;
  if (!settings) return config;
  const s = schedulingOf(model.config, settings);
  if (settings.max_batch_size !== undefined) config.max_batch_size = s.maxBatchSize;
  if (settings.instance_group !== undefined) config.instance_group = writable<InstanceGroup[]>(settings.instance_group);
  if (s.dynamicBatching === undefined) delete config.dynamic_batching;
  else config.dynamic_batching = writable<DynamicBatching>(s.dynamicBatching);
  if (s.sequenceBatching === undefined) delete config.sequence_batching;
  else config.sequence_batching = writable<SequenceBatching>(s.sequenceBatching);
  if (settings.decoupled === true) config.model_transaction_policy = { decoupled: true };
  else if (settings.decoupled === false) delete config.model_transaction_policy;
  return config;
}

/** The catalogue model a node names, with the scheduling it runs with. */
export interface EffectiveModel extends ModelScheduling {
  model: CatalogueModel;
}

/**
 * The node's catalogue model and its scheduling with the node's settings applied; undefined when the
 * catalogue has no such model.
 * @example effectiveModel(node, catalogue)?.maxBatchSize
 */
export function effectiveModel(node: ModelNode, catalogue: Catalogue): EffectiveModel | undefined {
  const model = catalogueModel(catalogue, node.params.model);
  return model && { model, ...schedulingOf(model.config, node.params.settings) };
}

/**
 * Whether two nodes' settings write the same config (key order and undefined members do not count).
 * @example sameSettings({ max_batch_size: 4 }, { max_batch_size: 4, decoupled: undefined }) === true
 */
export function sameSettings(a: NodeSettings | undefined, b: NodeSettings | undefined): boolean {
  return canonicalJson(a ?? {}) === canonicalJson(b ?? {});
}
