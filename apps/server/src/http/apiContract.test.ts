// Every /api route's response against its type in core's protocol/api.ts, on a real server: the shapes below
// must list each field of their type (or this file does not compile), and each response must carry exactly them.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type {
  ApiCatalogue,
  ApiCompileNodeResponse,
  ApiCompileResponse,
  ApiEngineHealth,
  ApiEngineModel,
  ApiErrorBody,
  ApiGraph,
  ApiGraphList,
  ApiGraphListing,
  ApiHealth,
  ApiImportResponse,
  ApiModelSource,
  ApiSaveGraphResponse,
  ApiValidateResponse,
  CatalogueModel,
  Diagnostic,
  GraphDoc,
  RepoFile,
} from '@ensemble-studio/core';
import { eachShapeProblems, shapeProblems, type Shape } from '../testing/apiShape.ts';
import { makeTestRepository } from '../testing/testRepository.ts';
import { call, startTestServer } from '../testing/testServer.ts';

const DIAGNOSTIC: Shape<Diagnostic> = {
  code: 'string',
  severity: 'string',
  message: 'string',
  nodeId: 'string?',
  edgeId: 'string?',
  port: 'string?',
  fix: 'string?',
  column: 'number?',
};
const ENGINE_MODEL: Shape<ApiEngineModel> = {
  state: 'string',
  instances: 'number',
  error: 'string?',
  coldStartMs: 'number?',
  firstRunMs: 'number?',
};
const ENGINE: Shape<ApiEngineHealth> = {
  executionProviders: 'object',
  notices: 'array',
  models: 'object',
  activeRuns: 'number',
  activeSequences: 'number',
};
const PROVIDERS: Shape<ApiEngineHealth['executionProviders']> = { available: 'array', inUse: 'object' };
const HEALTH: Shape<ApiHealth> = {
  ok: 'boolean',
  version: 'string',
  protocol: 'number',
  repository: 'string',
  models: 'number',
  graphs: 'number',
  problems: 'number',
  runsInFlight: 'number',
  engine: 'object',
};
const CATALOGUE: Shape<ApiCatalogue> = { dir: 'string', models: 'object', problems: 'array' };
const CATALOGUE_MODEL: Shape<CatalogueModel> = {
  name: 'string',
  versions: 'array',
  platform: 'string',
  backend: 'string',
  maxBatchSize: 'number',
  inputs: 'array',
  outputs: 'array',
  decoupled: 'boolean',
  config: 'object',
  generated: 'object?',
  error: 'string?',
};
const GRAPH_LIST: Shape<ApiGraphList> = { graphs: 'array' };
const GRAPH_LISTING: Shape<ApiGraphListing> = {
  name: 'string',
  description: 'string?',
  nodes: 'number',
  edges: 'number',
  errors: 'number',
};
const GRAPH: Shape<ApiGraph> = {
  version: 'number',
  name: 'string',
  description: 'string?',
  maxBatchSize: 'number',
  nodes: 'array',
  edges: 'array',
};
const SAVED: Shape<ApiSaveGraphResponse> = { saved: 'string', configWritten: 'boolean', diagnostics: 'array' };
const VALIDATED: Shape<ApiValidateResponse> = { ok: 'boolean', diagnostics: 'array' };
const COMPILED: Shape<ApiCompileResponse> = { ok: 'boolean', files: 'array', diagnostics: 'array' };
const REPO_FILE: Shape<RepoFile> = { path: 'string', text: 'string?', copyFrom: 'string?' };
const NODE_FILES: Shape<ApiCompileNodeResponse> = { nodeId: 'string', files: 'array' };
const IMPORTED: Shape<ApiImportResponse> = { dir: 'string', models: 'array', graphs: 'array', problems: 'array' };
const SOURCE: Shape<ApiModelSource> = { model: 'string', path: 'string', bytes: 'number', text: 'string' };
const ERROR: Shape<ApiErrorBody> = { error: 'object' };
const ERROR_FIELDS: Shape<ApiErrorBody['error']> = { code: 'string', message: 'string', details: 'any?' };

let s: Awaited<ReturnType<typeof startTestServer>>;
beforeAll(async () => {
  const repo = makeTestRepository();
  mkdirSync(join(repo, 'add_one', '1'), { recursive: true });
  const io =
    'input [ { name: "x" data_type: TYPE_FP32 dims: [ 1 ] } ]\noutput [ { name: "y" data_type: TYPE_FP32 dims: [ 1 ] } ]\n';
  writeFileSync(join(repo, 'add_one', 'config.pbtxt'), `name: "add_one"\nbackend: "python"\nmax_batch_size: 0\n${io}`);
  writeFileSync(
    join(repo, 'add_one', '1', 'model.py'),
    'class TritonPythonModel:\n    def execute(self, requests):\n        return []\n',
  );
  s = await startTestServer({ repo, importRoots: [repo] });
});
afterAll(async () => s?.close());

/** The route's JSON body, after checking its status. */
async function body(expectedStatus: number, path: string, method = 'GET', payload?: unknown): Promise<unknown> {
  const r = await call(`${s.url}${path}`, method, payload);
  expect(r.status, `${method} ${path}: ${r.text.slice(0, 300)}`).toBe(expectedStatus);
  return r.json;
}

describe('shapeProblems', () => {
  it('names a missing key, a key the type lacks and a value of another kind, and passes a match', () => {
    expect(shapeProblems({ saved: 'g', configWritten: 'yes', extra: 1 }, SAVED, 'PUT')).toEqual([
      'PUT.configWritten: expected boolean, got string',
      'PUT.diagnostics: missing',
      'PUT.extra: not in the type',
    ]);
    expect(shapeProblems({ name: 'g', nodes: 1, edges: 0, errors: 0 }, GRAPH_LISTING, 'x')).toEqual([]);
    expect(eachShapeProblems([{ path: 'a' }, { path: 1 }], REPO_FILE, 'files')).toEqual([
      'files[1].path: expected string, got number',
    ]);
  });
});

describe('/api responses match their types in core', () => {
  it('GET /api/health', async () => {
    const health = (await body(200, '/api/health')) as ApiHealth;
    expect([
      ...shapeProblems(health, HEALTH, 'health'),
      ...shapeProblems(health.engine, ENGINE, 'health.engine'),
      ...shapeProblems(health.engine.executionProviders, PROVIDERS, 'health.engine.executionProviders'),
      ...eachShapeProblems(health.engine.models, ENGINE_MODEL, 'health.engine.models'),
    ]).toEqual([]);
  });

  it('GET /api/catalogue', async () => {
    const catalogue = (await body(200, '/api/catalogue')) as ApiCatalogue;
    expect(Object.keys(catalogue.models)).toContain('add_one');
    expect(catalogue.problems.length).toBeGreaterThan(0);
    expect([
      ...shapeProblems(catalogue, CATALOGUE, 'catalogue'),
      ...eachShapeProblems(catalogue.models, CATALOGUE_MODEL, 'catalogue.models'),
      ...eachShapeProblems(catalogue.problems, DIAGNOSTIC, 'catalogue.problems'),
    ]).toEqual([]);
  });

  it('GET /api/graphs and /api/graphs/:name', async () => {
    const list = (await body(200, '/api/graphs')) as ApiGraphList;
    expect(list.graphs.map((g) => g.name)).toEqual(['pipe']);
    const graph = await body(200, '/api/graphs/pipe');
    expect([
      ...shapeProblems(list, GRAPH_LIST, 'graphs'),
      ...eachShapeProblems(list.graphs, GRAPH_LISTING, 'graphs.graphs'),
      ...shapeProblems(graph, GRAPH, 'graph'),
    ]).toEqual([]);
  });

  it('PUT and DELETE /api/graphs/:name', async () => {
    const pipe = (await body(200, '/api/graphs/pipe')) as GraphDoc;
    const saved = (await body(200, '/api/graphs/contract_copy', 'PUT', {
      ...pipe,
      name: 'contract_copy',
    })) as ApiSaveGraphResponse;
    expect(saved.saved).toBe('contract_copy');
    expect([
      ...shapeProblems(saved, SAVED, 'save'),
      ...eachShapeProblems(saved.diagnostics, DIAGNOSTIC, 'save.diagnostics'),
    ]).toEqual([]);
    const deleted = await call(`${s.url}/api/graphs/contract_copy`, 'DELETE');
    expect([deleted.status, deleted.text]).toEqual([204, '']);
  });

  it('POST /api/validate and /api/compile (whole graph and one node)', async () => {
    const validated = (await body(200, '/api/validate', 'POST', { graph: 'pipe' })) as ApiValidateResponse;
    const compiled = (await body(200, '/api/compile', 'POST', { graph: 'pipe' })) as ApiCompileResponse;
    expect(compiled.files.length).toBeGreaterThan(0);
    const pipe = (await body(200, '/api/graphs/pipe')) as GraphDoc;
    const nodeId = pipe.nodes.find((n) => n.kind === 'model')!.id;
    const nodeFiles = (await body(200, '/api/compile', 'POST', { graph: 'pipe', nodeId })) as ApiCompileNodeResponse;
    expect(nodeFiles.nodeId).toBe(nodeId);
    expect([
      ...shapeProblems(validated, VALIDATED, 'validate'),
      ...eachShapeProblems(validated.diagnostics, DIAGNOSTIC, 'validate.diagnostics'),
      ...shapeProblems(compiled, COMPILED, 'compile'),
      ...eachShapeProblems(compiled.files, REPO_FILE, 'compile.files'),
      ...shapeProblems(nodeFiles, NODE_FILES, 'compile node'),
      ...eachShapeProblems(nodeFiles.files, REPO_FILE, 'compile node.files'),
    ]).toEqual([]);
  });

  it('GET /api/models/:name/source', async () => {
    const source = (await body(200, '/api/models/add_one/source')) as ApiModelSource;
    expect(source.path).toBe('add_one/1/model.py');
    expect(shapeProblems(source, SOURCE, 'source')).toEqual([]);
  });

  it('errors: {error: {code, message, details?}}', async () => {
    const missing = (await body(404, '/api/graphs/nope')) as ApiErrorBody;
    const empty: GraphDoc = { version: 1, name: 'empty', maxBatchSize: 0, nodes: [], edges: [] };
    const refused = (await body(422, '/api/export', 'POST', { graph: empty })) as ApiErrorBody;
    expect(refused.error.details).toBeDefined();
    expect([
      ...shapeProblems(missing, ERROR, 'not found'),
      ...shapeProblems(missing.error, ERROR_FIELDS, 'not found.error'),
      ...shapeProblems(refused, ERROR, 'export'),
      ...shapeProblems(refused.error, ERROR_FIELDS, 'export.error'),
    ]).toEqual([]);
  });

  it('POST /api/import (last: it replaces the open repository)', async () => {
    const imported = (await body(200, '/api/import', 'POST', { dir: s.repo })) as ApiImportResponse;
    expect(imported.graphs).toEqual(['pipe']);
    expect([
      ...shapeProblems(imported, IMPORTED, 'import'),
      ...eachShapeProblems(imported.problems, DIAGNOSTIC, 'import.problems'),
    ]).toEqual([]);
  });
});
