import type { Request, Router } from 'express';
import { ApiError, badRequest } from '../errors.ts';
import { loadModel, unloadModel } from '../modelLoading.ts';
import { modelStatistics } from '../modelStatistics.ts';
import type { Studio } from '../Studio.ts';
import { repositoryIndex } from '../servedModels.ts';
import type { RepositoryBody } from '../repositoryBody.ts';
import { overridesRefusal } from '../../grpc/repositoryRequests.ts';
import { rawBody } from './kserveRun.ts';

/** The fields of the request's body that the repository endpoints read (a large body is parsed in the body worker). */
function repositoryBody(studio: Studio, req: Request): Promise<RepositoryBody> {
  return studio.bodies.repository(rawBody(req));
}

/**
 * Triton's load may carry a config or model files to load instead of the repository's: the studio loads only from
 * disk. The parameters are first checked as Triton's HTTP server checks them, in its words and with its status (500:
 * its JSON reader's and parameter errors are INTERNAL): an object of strings, each named `config` or `file:…`.
 */
function refuseOverrides(name: string, body: RepositoryBody): void {
  const params = body.parameters;
  if (params === undefined) return;
  if (params === 'not-object') throw new ApiError(500, 'internal', 'attempt to get members for non-object');
  if (params.problem === 'not-string')
    throw new ApiError(500, 'internal', 'attempt to access JSON non-string as string');
  if (params.problem === 'unknown-key')
    throw new ApiError(500, 'internal', 'unexpected error on creating Triton parameter');
  if (params.count > 0) throw new ApiError(400, 'bad-request', overridesRefusal(name, params.named, params.count));
}

/**
 * Triton's statistics and model repository extensions over HTTP: `GET /v2/models/stats`,
 * `GET /v2/models/{m}[/versions/{v}]/stats`, `POST /v2/repository/index`, and
 * `POST /v2/repository/models/{m}/load|unload` (the same functions answer gRPC).
 * @example repositoryRoutes(studio, router) // before the model routes
 */
export function repositoryRoutes(studio: Studio, router: Router): void {
  router.get('/v2/models/stats', (_req, res) => void res.json({ model_stats: modelStatistics(studio) }));
  router.get('/v2/models/:model{/versions/:version}/stats', (req, res) => {
    const version = req.params.version === undefined ? undefined : String(req.params.version);
    res.json({ model_stats: modelStatistics(studio, String(req.params.model), version) });
  });
  router.post('/v2/repository/index', async (req, res) => {
    const { ready = false } = await repositoryBody(studio, req);
    if (ready === 'other') throw badRequest("Invalid value for 'ready': expected a boolean");
    res.json(repositoryIndex(studio).filter((m) => !ready || m.state === 'READY'));
  });
  router.post('/v2/repository/models/:model/load', async (req, res) => {
    const name = String(req.params.model);
    refuseOverrides(name, await repositoryBody(studio, req));
    await loadModel(studio, name);
    res.status(200).end();
  });
  router.post('/v2/repository/models/:model/unload', async (req, res) => {
    // Over HTTP a value that is not a boolean unloads the model alone: Triton's server sets aside that parse error
    // (its unload's status replaces it).
    const { unloadDependents } = await repositoryBody(studio, req);
    await unloadModel(studio, String(req.params.model), unloadDependents);
    res.status(200).end();
  });
}
