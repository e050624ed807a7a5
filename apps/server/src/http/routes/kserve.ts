import express, { Router, type Request, type RequestHandler, type Response } from 'express';
import { configJson } from '@ensemble-studio/core';
import { answerErrorsHere } from '../answerErrorsHere.ts';
import { largeBodyChunks, refuseDeclaredOverLimit } from '../bodyChunks.ts';
import { INLINE_PARSE_BYTES } from '../bodyParser.ts';
import { capMessage } from '../errors.ts';
import { modelConfig, servedModel } from '../servedModels.ts';
import type { Studio } from '../Studio.ts';
import { generateStreamHandler } from './kserveGenerate.ts';
import { inferHandler } from './kserveInfer.ts';
import { refuseUnservable } from './kserveRun.ts';
import { repositoryRoutes } from './kserveRepository.ts';
import { sharedMemoryRoutes } from './kserveSharedMemory.ts';
import { loggingRoutes } from './kserveLogging.ts';
import { traceRoutes } from './kserveTrace.ts';
import { traceArrival } from '../tracing.ts';

const M = '/v2/models/:model{/versions/:version}';

/**
 * The extensions the HTTP endpoint serves, named as Triton names them in its server metadata
 * (`generate` is the generate and generate_stream endpoints).
 */
export const HTTP_EXTENSIONS = [
  'classification',
  'model_configuration',
  'model_repository',
  'statistics',
  'sequence',
  'binary_tensor_data',
  'parameters',
  'generate',
  'system_shared_memory',
  'logging',
  'trace',
  'schedule_policy',
];

function healthRoutes(studio: Studio, router: Router): void {
  router.get('/v2/health/live', (_req, res) => void res.status(200).end());
  router.get('/v2/health/ready', (_req, res) => void res.status(200).end());
  router.get('/v2', (_req, res) => {
    res.json({ name: 'ensemble-studio', version: studio.version, extensions: HTTP_EXTENSIONS });
  });
}

function modelRoutes(studio: Studio, router: Router, readBody: RequestHandler[]): void {
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
  // Their refusals are answered where raised (answerErrorsHere.ts): a flood of them costs no router walk each.
  const here = (h: RequestHandler) => answerErrorsHere(h, studio.limits.maxBodyBytes);
  router.post(
    `${M}/infer`,
    traceArrival(studio),
    here(refuseUnservable(studio, true)),
    ...readBody,
    here(inferHandler(studio)),
  );
  router.post(
    `${M}/generate_stream`,
    here(refuseUnservable(studio, false)),
    ...readBody,
    here(generateStreamHandler(studio, true)),
  );
  router.post(
    `${M}/generate`,
    here(refuseUnservable(studio, false)),
    ...readBody,
    here(generateStreamHandler(studio, false)),
  );
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
  // Large plain bodies are kept as their chunks for the body worker to join (see bodyChunks.ts).
  // Bodies are read only by the routes that take one, after what their head alone refuses (a body over the
  // limit, an unknown model, a missing endpoint): such a request is answered unread, without `100 Continue`.
  const readBody = [largeBodyChunks(limit, INLINE_PARSE_BYTES), express.raw({ limit, type: () => true })];
  router.use('/v2', refuseDeclaredOverLimit(limit));
  healthRoutes(studio, router);
  // Before the model routes: `/v2/models/stats` would otherwise read as the metadata of a model called "stats".
  router.use('/v2/repository', ...readBody);
  repositoryRoutes(studio, router);
  router.use(['/v2/systemsharedmemory', '/v2/cudasharedmemory', '/v2/logging'], ...readBody);
  sharedMemoryRoutes(studio, router);
  loggingRoutes(studio, router);
  traceRoutes(studio, router, readBody);
  modelRoutes(studio, router, readBody);
  router.use(
    '/v2',
    (req: Request, res: Response) =>
      void res
        .status(404)
        .json({ error: capMessage(`no such endpoint ${req.method} ${req.originalUrl.split('?')[0]}`) }),
  );
  return router;
}
