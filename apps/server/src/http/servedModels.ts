// What KServe clients (HTTP and gRPC) see of the repository: each model, saved graph and generated helper model,
// its signature, readiness and effective config.
import type { Request } from 'express';
import type { CatalogueModel, GraphDoc, ModelConfig } from '@ensemble-studio/core';
import {
  catalogueModel,
  compileGraph,
  effectiveConfig,
  fullShape,
  keyedRecord,
  ownValue,
  parsePbtxt,
} from '@ensemble-studio/core';
import { ApiError } from './errors.ts';
import { graphSignature, type GraphSignature } from './graphSignature.ts';
import { allHelpers, findHelper, graphHelpers, type HelperModel } from './helperModels.ts';
import { isUnloaded, unloadedDependency } from './modelLoading.ts';
import { readiness } from './readiness.ts';
import type { Studio } from './Studio.ts';

/** What a KServe client sees of one model, saved graph, or helper model a saved graph generates. */
export interface ServedModel {
  name: string;
  versions: number[];
  platform: string;
  signature: GraphSignature;
  ready: boolean;
  error?: string;
  graph?: GraphDoc;
  helper?: HelperModel;
}

/** Finds the model or saved graph an HTTP request's path names. Throws Triton-like 404s. */
export function servedModel(studio: Studio, req: Request): ServedModel {
  return findServedModel(
    studio,
    String(req.params.model),
    req.params.version === undefined ? undefined : String(req.params.version),
  );
}

/**
 * Finds a model or saved graph by name (and version, when given), for any protocol. Throws Triton-like 404s.
 * @example findServedModel(studio, 'ocr', undefined).signature.inputs
 */
export function findServedModel(studio: Studio, name: string, versionText: string | undefined): ServedModel {
  const version = versionText === undefined ? undefined : Number(versionText);
  if (isUnloaded(studio, name))
    throw new ApiError(404, 'not-found', `Request for unknown model: '${name}' has no available versions`);
  const graph = ownValue(studio.repository.graphs, name);
  const model = catalogueModel(studio.catalogue, name);
  let served: ServedModel;
  if (graph) {
    // Ready as Triton means it: loaded. A model whose config parsed but whose session failed is not ready.
    const { ready, reason } = readiness(studio, name);
    const unloaded = ready ? unloadedDependency(studio, name) : undefined;
    const error = reason ?? (unloaded ? `graph '${name}' cannot run: ${unloaded}` : undefined);
    served = {
      name,
      versions: [1],
      platform: 'ensemble',
      signature: graphSignature(graph),
      ready: ready && !unloaded,
      graph,
      ...(error ? { error } : {}),
    };
  } else if (model) {
    const { ready, reason } = readiness(studio, name);
    served = {
      name,
      versions: model.versions,
      platform: model.platform || model.backend,
      ready,
      signature: modelSignature(model),
      ...(reason ? { error: reason } : {}),
    };
  } else {
    const helper = findHelper(studio, name);
    if (!helper) throw new ApiError(404, 'not-found', `Request for unknown model: '${name}' is not found`);
    served = {
      name,
      versions: [1],
      platform: helper.model.platform || helper.model.backend,
      ready: true,
      signature: modelSignature(helper.model),
      helper,
    };
  }
  if (version !== undefined && !served.versions.includes(version)) {
    throw new ApiError(404, 'not-found', `Request for unknown model: '${name}' version ${versionText} is not found`);
  }
  return served;
}

/** A model's inputs and outputs with their full shapes (the batch dimension first when it batches). */
function modelSignature(model: CatalogueModel): GraphSignature {
  const meta = (t: CatalogueModel['inputs'][number]) => ({
    name: t.name,
    datatype: t.datatype,
    shape: fullShape(t.dims, model.maxBatchSize),
  });
  return { inputs: model.inputs.map(meta), outputs: model.outputs.map(meta), maxBatchSize: model.maxBatchSize };
}

/**
 * The effective config of a model, or of a saved graph's compiled ensemble: what Triton reports after
 * load (defaults filled, an ensemble with a decoupled step marked decoupled), on a CPU-only server.
 * HTTP prints it with every primitive field (`configJson`); gRPC encodes it as it is.
 * @example modelConfig(studio, servedModel(studio, req)).instance_group // [{ name: 'det', kind: 'KIND_CPU', count: 2 }]
 */
export function modelConfig(studio: Studio, served: ServedModel): ModelConfig {
  const configs = keyedRecord<ModelConfig>();
  for (const m of Object.values(studio.catalogue.models)) if (!m.error) configs[m.name] = m.config;
  const effective = (config: ModelConfig): ModelConfig => effectiveConfig(config, { dirName: served.name, configs });
  if (served.helper) return effective(served.helper.model.config);
  const cat = catalogueModel(studio.catalogue, served.name);
  if (cat && !served.graph) return effective(cat.config);
  // A saved graph's config is its compilation's: compiled once per graph document and catalogue, not per request
  // (200 gRPC ModelConfig requests for `ocr` read in one turn compiled it 200 times: 671 ms of the main thread's CPU).
  const result = graphConfig(studio, served.graph!);
  if (result instanceof ApiError) throw result;
  return structuredClone(result);
}

/**
 * Compiles every saved graph of the open repository (its helper models and its effective config) now, as the first
 * KServe request naming it or listing the repository otherwise would, in its turn: called before the server listens.
 * @example warmGraphs(studio)
 */
export function warmGraphs(studio: Studio): void {
  for (const graph of Object.values(studio.repository.graphs)) {
    graphHelpers(studio, graph);
    graphConfig(studio, graph);
  }
}

/** `graph`'s effective config, or why it has none: remembered per graph document and catalogue. */
function graphConfig(studio: Studio, graph: GraphDoc): ModelConfig | ApiError {
  const hit = studio.graphConfigs.get(graph);
  if (hit?.catalogue === studio.catalogue) return hit.result;
  const result = compiledConfig(graph, studio.catalogue);
  studio.graphConfigs.set(graph, { catalogue: studio.catalogue, result });
  return result;
}

/** The effective config of `graph`'s compiled ensemble, or (when it does not compile) its catalogue model's or why not. */
function compiledConfig(graph: GraphDoc, catalogue: Studio['catalogue']): ModelConfig | ApiError {
  const configs = keyedRecord<ModelConfig>();
  for (const m of Object.values(catalogue.models)) if (!m.error) configs[m.name] = m.config;
  const compiled = compileGraph(graph, catalogue);
  const text = compiled.files.find((f) => f.path === `${graph.name}/config.pbtxt`)?.text;
  if (!compiled.ok || text === undefined) {
    const fallback = catalogueModel(catalogue, graph.name)?.config;
    if (fallback) return effectiveConfig(fallback, { dirName: graph.name, configs });
    return new ApiError(
      400,
      'invalid-graph',
      `graph '${graph.name}' does not compile: ${compiled.diagnostics.find((d) => d.severity === 'error')?.message ?? 'unknown error'}`,
    );
  }
  // The graph's generated helper models count for the decoupled flag as the catalogue's models do.
  for (const f of compiled.files) {
    const helper = /^([^/]+)\/config\.pbtxt$/.exec(f.path)?.[1];
    if (helper === undefined || helper === graph.name || f.text === undefined) continue;
    const parsedHelper = parsePbtxt(f.text);
    if (parsedHelper.ok) configs[helper] = parsedHelper.config;
  }
  const parsed = parsePbtxt(text);
  if (!parsed.ok)
    return new ApiError(500, 'internal', `compiled config of '${graph.name}' does not parse: ${parsed.error.message}`);
  return effectiveConfig(parsed.config, { dirName: graph.name, configs });
}

/**
 * Every model, saved graph and helper model with its state, as Triton's repository index lists them
 * (HTTP and gRPC); an unloaded one is UNAVAILABLE with reason "unloaded", as Triton reports it, and one that a
 * load is starting with nothing serving it meanwhile is LOADING.
 * @example repositoryIndex(studio).filter((m) => m.state === 'READY')
 */
export function repositoryIndex(
  studio: Studio,
): { name: string; version: string; state: 'READY' | 'UNAVAILABLE' | 'LOADING'; reason?: string }[] {
  const names = new Set([
    ...Object.keys(studio.catalogue.models),
    ...Object.keys(studio.repository.graphs),
    ...allHelpers(studio).keys(),
  ]);
  return [...names].sort().map((name) => {
    const version = String(catalogueModel(studio.catalogue, name)?.versions.at(-1) ?? 1);
    const loading = studio.engine.modelLoading(name);
    if (isUnloaded(studio, name))
      return loading
        ? { name, version, state: 'LOADING' }
        : { name, version, state: 'UNAVAILABLE', reason: 'unloaded' };
    const { ready, error } = findServedModel(studio, name, undefined);
    if (!ready && loading) return { name, version, state: 'LOADING' };
    return { name, version, state: ready ? 'READY' : 'UNAVAILABLE', ...(error ? { reason: error } : {}) };
  });
}
