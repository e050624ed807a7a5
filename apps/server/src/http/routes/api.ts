import express, { Router, type NextFunction, type Request, type RequestHandler, type Response } from 'express';
import type {
  ApiCatalogue,
  ApiGraph,
  ApiGraphList,
  ApiHealth,
  ApiImportResponse,
  ApiSaveGraphResponse,
  ApiValidateResponse,
} from '@ensemble-studio/core';
import {
  PROTOCOL_VERSION,
  apiCompileRequestSchema,
  apiGraphRequestSchema,
  apiImportRequestSchema,
  catalogueModel,
  hasErrors,
  isObj,
  migrate,
  ownValue,
  readApiBody,
  validateGraph,
} from '@ensemble-studio/core';
import { isAbsolute, resolve } from 'node:path';
import { deleteGraph, saveGraph } from '../../repo/saveGraph.ts';
import { isSafeName } from '../../repo/safeJoin.ts';
import { refuseDeclaredOverLimit } from '../bodyChunks.ts';
import { ApiError, badRequest, storageError } from '../errors.ts';
import { openedContainers } from '../jsonContainers.ts';
import { engineProblems } from '../readiness.ts';
import type { Studio } from '../Studio.ts';

/** A JSON body read with its schema. @throws ApiError 400 naming the field and what was expected. */
function readBody<T>(schema: Parameters<typeof readApiBody<T>>[0], req: Request): T {
  const read = readApiBody(schema, req.body);
  if (!read.ok) throw badRequest(read.error);
  return read.value;
}

function graphName(req: Request): string {
  const name = req.params.name;
  if (!isSafeName(name))
    throw new ApiError(400, 'bad-name', `"${String(name).slice(0, 128)}" is not a valid graph name`);
  return name;
}

/** A graph of the repository that did not load (its studio.json over the limit, not JSON…), saying why. */
function failedGraph(studio: Studio, name: string): ApiError | undefined {
  const m = catalogueModel(studio.catalogue, name);
  if (m?.platform !== 'ensemble' || !m.error) return undefined;
  return new ApiError(422, 'graph-load', `graph "${name}" did not load: ${m.error}`);
}

/** GET health / catalogue / graphs list. */
function readRoutes(studio: Studio, router: Router): void {
  router.get('/health', (_req, res) => {
    const repo = studio.repository;
    res.json({
      ok: true,
      version: studio.version,
      protocol: PROTOCOL_VERSION,
      repository: repo.dir,
      models: Object.keys(repo.catalogue.models).length,
      graphs: Object.keys(repo.graphs).length,
      problems: repo.problems.length + engineProblems(studio).length,
      runsInFlight: studio.runsInFlight,
      engine: studio.engine.health(),
    } satisfies ApiHealth);
  });
  router.get('/catalogue', (_req, res) => {
    const problems = [...studio.repository.problems, ...engineProblems(studio)];
    res.json({ dir: studio.repository.dir, models: studio.catalogue.models, problems } satisfies ApiCatalogue);
  });
  router.get('/graphs', (_req, res) => {
    const graphs = Object.values(studio.repository.graphs).map((g) => ({
      name: g.name,
      description: g.description,
      nodes: g.nodes.length,
      edges: g.edges.length,
      errors: validateGraph(g, studio.catalogue).filter((d) => d.severity === 'error').length,
    }));
    res.json({ graphs: graphs.sort((a, b) => a.name.localeCompare(b.name)) } satisfies ApiGraphList);
  });
  router.get('/graphs/:name', (req, res) => {
    const name = graphName(req);
    const g = ownValue(studio.repository.graphs, name);
    if (!g) throw failedGraph(studio, name) ?? new ApiError(404, 'not-found', `no graph named "${name}"`);
    res.json(g satisfies ApiGraph);
  });
}

/** PUT / DELETE a saved graph. */
function writeRoutes(studio: Studio, router: Router, json: RequestHandler): void {
  const nameFromHead: RequestHandler = (req, _res, next) => {
    graphName(req);
    next();
  };
  router.put('/graphs/:name', nameFromHead, json, async (req, res) => {
    const name = graphName(req);
    // The document itself or `{graph}`; migrate reads it with the graph document schema.
    const body: unknown = req.body;
    const migrated = migrate(isObj(body) && 'graph' in body ? body.graph : body);
    if (!migrated.ok) throw new ApiError(400, 'bad-graph', `graph document: ${migrated.error}`);
    if (migrated.graph.name !== name)
      throw new ApiError(400, 'name-mismatch', `graph is named "${migrated.graph.name}" but was saved as "${name}"`);
    studio.checkGraphLimits(migrated.graph);
    const result = await saveGraph(() => studio.repository, migrated.graph).catch((err: unknown) => {
      throw storageError(err);
    });
    res.json({
      saved: name,
      configWritten: result.configWritten,
      diagnostics: result.diagnostics,
    } satisfies ApiSaveGraphResponse);
  });
  router.delete('/graphs/:name', async (req, res) => {
    const name = graphName(req);
    const deleted = await deleteGraph(() => studio.repository, name).catch((err: unknown) => {
      throw storageError(err);
    });
    if (!deleted) throw new ApiError(404, 'not-found', `no graph named "${name}"`);
    res.status(204).end();
  });
}

/** validate / compile / export / import. */
function toolRoutes(studio: Studio, router: Router, json: RequestHandler): void {
  router.post('/validate', json, (req, res) => {
    const diagnostics = validateGraph(
      studio.resolveGraph(readBody(apiGraphRequestSchema, req).graph),
      studio.catalogue,
    );
    res.json({ ok: !hasErrors(diagnostics), diagnostics } satisfies ApiValidateResponse);
  });
  // Compiling and zipping run in the body worker (graphJobs.ts).
  router.post('/compile', json, async (req, res) => {
    const body = readBody(apiCompileRequestSchema, req);
    const graph = studio.resolveGraph(body.graph);
    const { nodeId } = body;
    if (nodeId !== undefined && !graph.nodes.some((n) => n.id === nodeId))
      throw new ApiError(404, 'not-found', `graph "${graph.name}" has no node "${nodeId.slice(0, 128)}"`);
    const done = await studio.bodies.graph({
      kind: 'compile',
      graph,
      catalogue: studio.catalogue,
      ...(nodeId === undefined ? {} : { nodeId }),
    });
    if (done.kind !== 'json')
      throw new ApiError(500, 'internal', 'the compiler answered with the wrong kind of result');
    res.type('application/json').send(done.text);
  });
  router.post('/export', json, async (req, res) => {
    const graph = studio.resolveGraph(readBody(apiGraphRequestSchema, req).graph);
    const sourceRepoDir = studio.repository.dir;
    const done = await studio.bodies.graph({ kind: 'export', graph, catalogue: studio.catalogue, sourceRepoDir });
    if (done.kind === 'invalid')
      throw new ApiError(422, 'invalid-graph', `graph "${graph.name}" does not compile`, done.diagnostics);
    if (done.kind !== 'zip') throw new ApiError(500, 'internal', 'the compiler answered with the wrong kind of result');
    const { zip } = done;
    res.setHeader('Content-Type', 'application/zip');
    res.setHeader('Content-Disposition', `attachment; filename="${graph.name}.zip"`);
    res.end(Buffer.from(zip.buffer, zip.byteOffset, zip.byteLength));
  });
  router.post('/import', json, async (req, res) => {
    const { dir } = readBody(apiImportRequestSchema, req);
    const repo = await studio.openRepository(
      isAbsolute(dir) ? dir : resolve(process.env.INIT_CWD ?? process.cwd(), dir),
    );
    const imported = {
      dir: repo.dir,
      models: Object.keys(repo.catalogue.models).sort(),
      graphs: Object.keys(repo.graphs).sort(),
      problems: repo.problems,
    };
    res.json(imported satisfies ApiImportResponse);
  });
}

/**
 * The studio's JSON API, mounted at `/api`.
 * @example app.use('/api', apiRouter(studio))
 */
export function apiRouter(studio: Studio): Router {
  const router = Router();
  const { maxBodyBytes, maxApiBodyBytes } = studio.limits;
  const limit = Math.min(maxBodyBytes, maxApiBodyBytes);
  const limitName = maxApiBodyBytes < maxBodyBytes ? 'maxApiBodyBytes' : 'maxBodyBytes';
  // A graph within the node and edge limits opens a bounded number of JSON objects and arrays (a node's
  // settings a few dozen); a body opening more is refused before JSON.parse, which would spend a second
  // of the main thread on 4 MiB of `[[[[…`.
  const { maxGraphNodes, maxGraphEdges } = studio.limits;
  const maxContainers = 64 * maxGraphNodes + 2 * maxGraphEdges;
  const verify = (_req: unknown, _res: unknown, buf: Buffer) => {
    if (openedContainers(buf, maxContainers) > maxContainers)
      throw new ApiError(
        413,
        'too-large',
        `request body opens more than ${maxContainers} JSON objects and arrays, more than a graph within the limits maxGraphNodes=${maxGraphNodes} and maxGraphEdges=${maxGraphEdges} holds`,
      );
  };
  // A body is read only by the routes that take one, after what their head alone refuses (a body over the limit,
  // a bad graph name, a missing route): such a request is answered unread, without `100 Continue`.
  router.use(refuseDeclaredOverLimit(limit));
  const json = express.json({ limit, verify });
  readRoutes(studio, router);
  writeRoutes(studio, router, json);
  toolRoutes(studio, router, json);
  router.use((err: unknown, _req: Request, _res: Response, next: NextFunction) => {
    const tooLarge = (err as { type?: string } | undefined)?.type === 'entity.too.large';
    if (err instanceof ApiError) return next(err);
    next(
      tooLarge
        ? new ApiError(413, 'too-large', `request body is over the limit ${limitName}=${limit}`, {
            limit: limitName,
            value: limit,
          })
        : err,
    );
  });
  router.use((req, _res, next) =>
    next(new ApiError(404, 'not-found', `no API route ${req.method} ${req.baseUrl}${req.path}`)),
  );
  return router;
}
