import type { Request } from 'express';
import { badRequest } from '../errors.ts';
import { rawBody } from './kserveRun.ts';

/** Bodies of the settings endpoints (a few fields each) are parsed on the main thread; past this size they are refused. */
const MAX_SMALL_BODY = 64 * 1024;

/**
 * The JSON of a request whose body is a few fields (shared memory registration, log settings); an empty body is `{}`
 * (Triton's `EVRequestToJsonAllowsEmpty`).
 * @throws ApiError 400 for a body over 64 KiB or one that is not JSON.
 * @example smallJsonBody(req, 'a logging request') // { log_verbose_level: 1 }
 */
export function smallJsonBody(req: Request, what: string): unknown {
  const body = rawBody(req);
  if (!(body instanceof Uint8Array) || body.byteLength > MAX_SMALL_BODY)
    throw badRequest(`${what} of ${body.byteLength} bytes: at most ${MAX_SMALL_BODY}`);
  if (body.byteLength === 0) return {};
  try {
    return JSON.parse(Buffer.from(body.buffer, body.byteOffset, body.byteLength).toString('utf8'));
  } catch (err) {
    throw badRequest(`failed to parse the request JSON buffer: ${(err as Error).message.slice(0, 200)}`);
  }
}
