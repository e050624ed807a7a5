import express, { Router, type Request, type Response } from 'express';
import type { CatalogueModel, GraphDoc, ModelConfig } from '@ensemble-studio/core';
import {
  catalogueModel,
  compileGraph,
  configJson,
  effectiveConfig,
  fullShape,
  keyedRecord,
  ownValue,
  parsePbtxt,
} from '@ensemble-studio/core';
import { ApiError, capMessage } from '../errors.ts';
import { graphSignature, type GraphSignature } from '../graphSignature.ts';
import { allHelpers, findHelper, type HelperModel } from '../helperModels.ts';
import { isUnloaded, unloadedDependency } from '../modelLoading.ts';
import { readiness } from '../readiness.ts';
import type { Studio } from '../Studio.ts';
import { generateStreamHandler, inferHandler } from './kserveInfer.ts';
import { repositoryRoutes } from './kserveRepository.ts';

const M = '/v2/models/:model{/versions/:version}';

/**
 * The extensions the HTTP endpoint serves, named as Triton names them in its server metadata
 * (`generate` is the generate and generate_stream endpoints).
 */
export const HTTP_EXTENSIONS = [
  'model_configuration',
  'model_repository',
  'statistics',
  'sequence',
  'binary_tensor_data',
  'parameters',
  'generate',
];

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
  return { inputs: model.inputs.map(meta), outputs: model.outputs.map(meta) };
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
  const graph = served.graph!;
  const compiled = compileGraph(graph, studio.catalogue);
  const text = compiled.files.find((f) => f.path === `${graph.name}/config.pbtxt`)?.text;
  if (!compiled.ok || text === undefined) {
    if (cat) return effective(cat.config);
    throw new ApiError(
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
    throw new ApiError(500, 'internal', `compiled config of '${graph.name}' does not parse: ${parsed.error.message}`);
  return effective(parsed.config);
}

function healthRoutes(studio: Studio, router: Router): void {
  router.get('/v2/health/live', (_req, res) => void res.status(200).end());
  router.get('/v2/health/ready', (_req, res) => void res.status(200).end());
  router.get('/v2', (_req, res) => {
    res.json({ name: 'ensemble-studio', version: studio.version, extensions: HTTP_EXTENSIONS });
  });
}

/**
 * Every model, saved graph and helper model with its state, as Triton's repository index lists them
 * (HTTP and gRPC); an unloaded one is UNAVAILABLE with reason "unloaded", as Triton reports it.
 * @example repositoryIndex(studio).filter((m) => m.state === 'READY')
 */
export function repositoryIndex(
  studio: Studio,
): { name: string; version: string; state: 'READY' | 'UNAVAILABLE'; reason?: string }[] {
  const names = new Set([
    ...Object.keys(studio.catalogue.models),
    ...Object.keys(studio.repository.graphs),
    ...allHelpers(studio).keys(),
  ]);
  return [...names].sort().map((name) => {
    const version = String(catalogueModel(studio.catalogue, name)?.versions.at(-1) ?? 1);
    if (isUnloaded(studio, name)) return { name, version, state: 'UNAVAILABLE', reason: 'unloaded' };
    const { ready, error } = findServedModel(studio, name, undefined);
    return { name, version, state: ready ? 'READY' : 'UNAVAILABLE', ...(error ? { reason: error } : {}) };
  });
}

function modelRoutes(studio: Studio, router: Router): void {
  router.get(M, (req, res) => {
    const s = servedModel(studio, req);
    res.json({
      name: s.name,
      versions: s.versions.map(String),
      platform: s.platform,
      inputs: s.signature.inputs,
      outputs: s.signature.outputs,
    });
  });
  router.get(`${M}/ready`, (req, res) => {
    let ready: boolean;
    try {
      ready = servedModel(studio, req).ready;
    } catch {
      ready = false;
    }
    res.status(ready ? 200 : 400).end();
  });
  router.get(`${M}/config`, (req, res) => void res.json(configJson(modelConfig(studio, servedModel(studio, req)))));
  router.post(`${M}/infer`, inferHandler(studio));
  router.post(`${M}/generate_stream`, generateStreamHandler(studio, true));
  router.post(`${M}/generate`, generateStreamHandler(studio, false));
}

/**
 * KServe v2 / Triton HTTP endpoints for every model and every saved graph.
 * Errors are `{"error": "msg"}` as Triton sends them.
 * @example app.use(kserveRouter(studio))
 */
export function kserveRouter(studio: Studio): Router {
  const router = Router();
  const limit = studio.limits.maxBodyBytes;
  // Every body is read raw: Triton clients send JSON with or without a content type, and the binary
  // extension sends a JSON header followed by tensor bytes (Inference-Header-Content-Length).
  router.use('/v2', express.raw({ limit, type: () => true }));
  healthRoutes(studio, router);
  // Before the model routes: `/v2/models/stats` would otherwise read as the metadata of a model called "stats".
  repositoryRoutes(studio, router);
  modelRoutes(studio, router);
  router.use(
    '/v2',
    (req: Request, res: Response) =>
      void res
        .status(404)
        .json({ error: capMessage(`no such endpoint ${req.method} ${req.originalUrl.split('?')[0]}`) }),
  );
  return router;
}
