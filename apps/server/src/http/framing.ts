import type { RequestHandler } from 'express';
import { badRequest } from './errors.ts';

/**
 * Refuses a request whose framing is ambiguous, and closes its connection: an HTTP/1.0 request with
 * `Transfer-Encoding` (HTTP/1.0 has no chunked coding, so a proxy in front may read its body by another rule and
 * see a different next request). Node's parser took the chunked body and ran the request pipelined behind it.
 * @example app.use(refuseAmbiguousFraming())
 */
export function refuseAmbiguousFraming(): RequestHandler {
  return (req, res, next) => {
    if (req.httpVersionMajor !== 1 || req.httpVersionMinor !== 0 || req.headers['transfer-encoding'] === undefined)
      return next();
    res.setHeader('Connection', 'close');
    next(badRequest('an HTTP/1.0 request cannot carry Transfer-Encoding: its framing is ambiguous'));
  };
}
