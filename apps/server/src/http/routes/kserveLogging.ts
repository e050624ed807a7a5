import type { Router } from 'express';
import type { Studio } from '../Studio.ts';
import { smallJsonBody } from './smallJsonBody.ts';

/**
 * Triton's logging extension over HTTP: `GET /v2/logging` reports the server log's settings, `POST /v2/logging`
 * changes those its body names and reports them all (logSettings.ts); another method is 405.
 * @example loggingRoutes(studio, router) // after the body readers of /v2/logging
 */
export function loggingRoutes(studio: Studio, router: Router): void {
  router.get('/v2/logging', (_req, res) => void res.json(studio.logSettings.values));
  router.post('/v2/logging', (req, res) => {
    studio.logSettings.updateFromJson(smallJsonBody(req, 'a logging request'));
    res.json(studio.logSettings.values);
  });
  router.all('/v2/logging', (_req, res) => void res.status(405).json({ error: 'Method Not Allowed' }));
}
