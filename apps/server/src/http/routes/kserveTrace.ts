import type { Request, RequestHandler, Router } from 'express';
import type { Studio } from '../Studio.ts';
import { badRequest } from '../errors.ts';
import { findServedModel } from '../servedModels.ts';
import { traceSettingFromJson } from '../../trace/traceRequests.ts';
import { smallJsonBody } from './smallJsonBody.ts';

/**
 * Triton's trace extension over HTTP: `GET /v2[/models/{m}]/trace/setting` reports the global or a model's trace
 * settings, `POST` changes those its body names and reports them all (traceSettings.ts); another method is 405.
 * @example traceRoutes(studio, router, readBody)
 */
export function traceRoutes(studio: Studio, router: Router, readBody: RequestHandler[]): void {
  for (const path of ['/v2/trace/setting', '/v2/models/:model/trace/setting']) {
    router.get(path, (req, res) => void res.json(studio.traces.json(tracedModel(studio, req))));
    router.post(path, ...readBody, (req, res) => {
      const model = tracedModel(studio, req);
      studio.traces.update(model, traceSettingFromJson(smallJsonBody(req, 'a trace setting request')));
      res.json(studio.traces.json(model));
    });
    router.all(path, (_req, res) => void res.status(405).json({ error: 'Method Not Allowed' }));
  }
}

/**
 * The model a trace setting request names (none for the global settings); one not ready is refused as Triton does.
 * @throws ApiError 400 "Request for unknown model : <m>"
 */
function tracedModel(studio: Studio, req: Request): string | undefined {
  return req.params.model === undefined ? undefined : readyModel(studio, String(req.params.model));
}

/** `name` when it is a model ready to serve, as Triton's trace endpoints check it (HTTP and gRPC). */
export function readyModel(studio: Studio, name: string): string {
  let ready: boolean;
  try {
    ready = findServedModel(studio, name, undefined).ready;
  } catch {
    ready = false;
  }
  if (!ready) throw badRequest(`Request for unknown model : ${name}`);
  return name;
}
