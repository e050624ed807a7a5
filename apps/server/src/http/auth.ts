import { timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { RequestHandler } from 'express';

/** True for hosts only this machine can reach. */
export function isLoopbackHost(host: string): boolean {
  const h = host.replace(/^\[|\]$/g, '').toLowerCase();
  return h === 'localhost' || h === '::1' || /^127(\.\d{1,3}){3}$/.test(h) || h === '::ffff:127.0.0.1';
}

/** Constant-time token comparison. */
export function tokenMatches(expected: string, given: string | undefined): boolean {
  if (given === undefined) return false;
  const a = Buffer.from(expected);
  const b = Buffer.from(given);
  return a.length === b.length && timingSafeEqual(a, b);
}

/** The bearer token of an HTTP request, if any. */
export function bearerToken(req: IncomingMessage): string | undefined {
  const h = req.headers.authorization;
  const m = typeof h === 'string' ? /^Bearer\s+(\S+)$/i.exec(h) : null;
  return m?.[1];
}

/**
 * Requires `Authorization: Bearer <token>` when the server has a token; no-op otherwise.
 * @example app.use('/api', requireToken(token))
 */
export function requireToken(token: string | undefined): RequestHandler {
  return (req, res, next) => {
    if (!token || tokenMatches(token, bearerToken(req))) return next();
    res.setHeader('WWW-Authenticate', 'Bearer');
    if (req.path.startsWith('/v2') || req.baseUrl.startsWith('/v2'))
      return void res.status(401).json({ error: 'missing or wrong bearer token' });
    res.status(401).json({
      error: { code: 'unauthorized', message: 'missing or wrong bearer token (Authorization: Bearer <token>)' },
    });
  };
}

/** A Host header as RFC 9110 allows it: a name or an address, an optional port, nothing else (no `user@`). */
const HOST_HEADER = /^(?:\[([0-9a-f:.]+)\]|([a-z0-9.-]+))(?::\d{1,5})?$/i;

/** The host name of a Host header (`127.0.0.1:8080` → `127.0.0.1`, `[::1]:80` → `::1`); '' when it is malformed. */
function hostName(header: string | undefined): string {
  const m = HOST_HEADER.exec((header ?? '').trim());
  return m ? (m[1] ?? m[2] ?? '') : '';
}

/**
 * Without a token the studio answers only requests addressed to a loopback name. A web page on
 * another site that rebinds its DNS name to 127.0.0.1 sends its own name as Host, and is refused
 * (DNS rebinding); with a token, the token is the guard.
 * @example if (!hostAllowed(req.headers.host, studio.token)) refuse()
 */
export function hostAllowed(hostHeader: string | undefined, token: string | undefined): boolean {
  return token !== undefined || isLoopbackHost(hostName(hostHeader));
}

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/** What a request says about the page that sent it: the headers browsers add and other clients leave out. */
export interface RequestSource {
  origin?: string | undefined;
  referer?: string | undefined;
  'sec-fetch-site'?: string | undefined;
}

/** Where a request came from: its `Origin`, else the origin of its `Referer` (a browser may omit one, not both). */
function sourceOrigin(headers: RequestSource): string | undefined {
  if (headers.origin !== undefined) return headers.origin;
  if (headers.referer === undefined) return undefined;
  try {
    return new URL(headers.referer).origin;
  } catch {
    return 'null';
  }
}

/**
 * True when a request may change state or run a model from where it came from: safe methods always;
 * others only from a client that names no page (curl, Triton clients, the CLI: no `Origin`, no `Referer`,
 * no `Sec-Fetch-Site` other than same-origin) or from the server's own origin. Browsers send `Origin` on
 * every cross-site POST, also the "simple" `text/plain` ones that skip the CORS preflight, so a page on
 * another site cannot drive the studio. The scheme is not compared: the studio serves plain HTTP, and an
 * `https:` origin with its host and port can only be a TLS proxy in front of it.
 * @example sameOriginAllowed('POST', { origin: 'http://evil.example' }, '127.0.0.1:8080') === false
 */
export function sameOriginAllowed(method: string, headers: RequestSource, host: string | undefined): boolean {
  return SAFE_METHODS.has(method.toUpperCase()) || fromOwnOrigin(headers, host);
}

/**
 * True when a request names no page (a client that is not a browser) or names a page of this server, by the
 * rules of `sameOriginAllowed`; WebSocket upgrades are judged by it alone.
 * @example fromOwnOrigin({ origin: 'null' }, '127.0.0.1:8080') === false
 */
export function fromOwnOrigin(headers: RequestSource, host: string | undefined): boolean {
  const origin = sourceOrigin(headers);
  if (origin === undefined) {
    const site = headers['sec-fetch-site'];
    return site === undefined || site === 'same-origin' || site === 'none';
  }
  try {
    const url = new URL(origin);
    return /^https?:$/.test(url.protocol) && url.host.toLowerCase() === String(host ?? '').toLowerCase();
  } catch {
    return false;
  }
}

/** Express middleware refusing state-changing and compute requests from another origin. */
export function requireSameOrigin(): RequestHandler {
  return (req, res, next) => {
    if (sameOriginAllowed(req.method, req.headers, req.headers.host)) return next();
    const h = req.headers;
    const from =
      h.origin !== undefined
        ? `Origin ${h.origin}`
        : h.referer !== undefined
          ? `Referer ${h.referer}`
          : `Sec-Fetch-Site ${String(h['sec-fetch-site'])}`;
    const message = `cross-origin ${req.method} refused: ${from.slice(0, 100)} is not this server`;
    if (req.path.startsWith('/v2')) return void res.status(403).json({ error: message });
    res.status(403).json({ error: { code: 'cross-origin', message } });
  };
}

/**
 * The host a request is addressed to: the authority of an absolute-form target (`GET http://host/path`), which a
 * server must use instead of the Host header (RFC 9112 §3.2.2), else the Host header.
 * @example addressedHost(req.url, req.headers.host)
 */
export function addressedHost(target: string | undefined, hostHeader: string | undefined): string | undefined {
  if (target === undefined || target.startsWith('/')) return hostHeader;
  try {
    return new URL(target).host;
  } catch {
    return '';
  }
}

/** Express middleware refusing requests not addressed to a loopback host when the server has no token. */
export function requireLoopbackHost(token: string | undefined): RequestHandler {
  return (req, res, next) => {
    if (hostAllowed(addressedHost(req.originalUrl, req.headers.host), token)) return next();
    res
      .status(403)
      .type('text/plain')
      .send(
        `this studio has no --token, so it only answers requests to localhost or 127.0.0.1 (got Host: ${String(addressedHost(req.originalUrl, req.headers.host)).slice(0, 100)})\n`,
      );
  };
}
