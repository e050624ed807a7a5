import type { IncomingMessage, RequestListener } from 'node:http';
import { hostAllowed } from './auth.ts';

/** Triton's liveness and readiness routes: always 200 with no body while the server serves. */
const HEALTH_PATHS = new Set(['/v2/health/live', '/v2/health/ready']);

/**
 * True when `req` is the plain form of a health check, which every check the app makes first would pass: a GET of
 * exactly that path (no query, no other spelling), with no body and addressed to a loopback host, on a server with
 * no token. Anything else (HEAD, `/v2/health/live/`, a token, a body, another Host) goes through the app.
 */
function plainHealthCheck(req: IncomingMessage, token: string | undefined): boolean {
  const h = req.headers;
  return (
    req.method === 'GET' &&
    HEALTH_PATHS.has(req.url ?? '') &&
    token === undefined &&
    h['content-length'] === undefined &&
    h['transfer-encoding'] === undefined &&
    hostAllowed(h.host, token)
  );
}

/**
 * `app`, with the plain health checks answered before it, exactly as its routes answer them (200, no body,
 * `X-Content-Type-Options: nosniff`). A burst of 1,000 health checks each on its own connection held a bystander
 * ~470 ms, over half of it in Express's router: load balancers and Triton's clients poll these routes, often on
 * fresh connections, so they should cost only Node's parser and a write.
 * @example createServer(oneRequestAtATime(healthFirst(app, studio.token)))
 */
export function healthFirst(app: RequestListener, token: string | undefined): RequestListener {
  return (req, res) => {
    if (!plainHealthCheck(req, token)) return app(req, res);
    res.setHeader('X-Content-Type-Options', 'nosniff');
    res.statusCode = 200;
    res.end();
  };
}
