import type { Router } from 'express';
import { badRequest } from '../errors.ts';
import type { Studio } from '../Studio.ts';
import { rawBody } from './kserveRun.ts';

/** A logging request is six settings: a body past this is none (parsed on the main thread). */
const MAX_LOGGING_BODY = 64 * 1024;

/**
 * Triton's logging extension over HTTP: `GET /v2/logging` reports the server log's settings, `POST /v2/logging`
 * changes those its body names and reports them all (logSettings.ts); another method is 405.
 * @example loggingRoutes(studio, router) // after the body readers of /v2/logging
 */
export function loggingRoutes(studio: Studio, router: Router): void {
  router.get('/v2/logging', (_req, res) => void res.json(studio.logSettings.values));
  router.post('/v2/logging', (req, res) => {
    const body = rawBody(req);
    if (!(body instanceof Uint8Array) || body.byteLength > MAX_LOGGING_BODY)
      throw badRequest(`a logging request of ${body.byteLength} bytes: at most ${MAX_LOGGING_BODY}`);
    let json: unknown = {};
    if (body.byteLength > 0) {
      try {
        json = JSON.parse(Buffer.from(body.buffer, body.byteOffset, body.byteLength).toString('utf8'));
      } catch (err) {
        throw badRequest(`failed to parse the request JSON buffer: ${(err as Error).message.slice(0, 200)}`);
      }
    }
    studio.logSettings.updateFromJson(json);
    res.json(studio.logSettings.values);
  });
  router.all('/v2/logging', (_req, res) => void res.status(405).json({ error: 'Method Not Allowed' }));
}
