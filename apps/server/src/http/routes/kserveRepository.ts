import type { Request, Router } from 'express';
import { isObj } from '@ensemble-studio/core';
import { ApiError, badRequest } from '../errors.ts';
import { loadModel, unloadModel } from '../modelLoading.ts';
import { modelStatistics } from '../modelStatistics.ts';
import type { Studio } from '../Studio.ts';
import { repositoryIndex } from '../servedModels.ts';

/**
 * The JSON object of a request body: `{}` when there is none, or when it is JSON but not an object (Triton looks its
 * members up only in an object, so such a body asks for nothing).
 */
function bodyObject(req: Request): Record<string, unknown> {
  const raw = Buffer.isBuffer(req.body) ? req.body.toString('utf8').trim() : '';
  if (raw === '') return {};
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch (err) {
    throw badRequest(`the request body is not JSON: ${(err as Error).message}`);
  }
  return isObj(parsed) ? parsed : {};
}

/**
 * An unload body's `parameters.unload_dependents`, read as Triton's HTTP server reads it: true only for JSON `true`.
 * Triton's server sets aside the error of a value that is not a boolean (its unload's status replaces it), so such
 * a value unloads the model alone.
 */
function unloadDependents(body: Record<string, unknown>): boolean {
  const params = body.parameters;
  return isObj(params) && Object.hasOwn(params, 'unload_dependents') && params.unload_dependents === true;
}

/**
 * Triton's load may carry a config or model files to load instead of the repository's: the studio loads only from
 * disk. The parameters are first checked as Triton's HTTP server checks them, in its words and with its status (500:
 * its JSON reader's and parameter errors are INTERNAL): an object of strings, each named `config` or `file:…`.
 */
function refuseOverrides(name: string, body: Record<string, unknown>): void {
  const params = body.parameters;
  if (params === undefined) return;
  if (!isObj(params)) throw new ApiError(500, 'internal', 'attempt to get members for non-object');
  for (const [key, value] of Object.entries(params)) {
    if (typeof value !== 'string') throw new ApiError(500, 'internal', 'attempt to access JSON non-string as string');
    if (key !== 'config' && !key.startsWith('file:'))
      throw new ApiError(500, 'internal', 'unexpected error on creating Triton parameter');
  }
  const overrides = Object.keys(params);
  if (overrides.length > 0) {
    throw new ApiError(
      400,
      'bad-request',
      `load of '${name}' with ${overrides.join(', ')} is not supported: the studio loads models from its repository on disk (edit the files, then load)`,
    );
  }
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
  router.post('/v2/repository/index', (req, res) => {
    const { ready = false } = bodyObject(req);
    if (typeof ready !== 'boolean') throw badRequest("Invalid value for 'ready': expected a boolean");
    res.json(repositoryIndex(studio).filter((m) => !ready || m.state === 'READY'));
  });
  router.post('/v2/repository/models/:model/load', async (req, res) => {
    const name = String(req.params.model);
    refuseOverrides(name, bodyObject(req));
    await loadModel(studio, name);
    res.status(200).end();
  });
  router.post('/v2/repository/models/:model/unload', async (req, res) => {
    await unloadModel(studio, String(req.params.model), unloadDependents(bodyObject(req)));
    res.status(200).end();
  });
}
