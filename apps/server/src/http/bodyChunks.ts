import type { NextFunction, Request, RequestHandler, Response } from 'express';

/**
 * A large request body kept as the chunks it arrived in. Joining 60 MB into one buffer on the main thread
 * touches 15,000 fresh memory pages at once (a few hundred ms during which no other client is answered);
 * the chunks go to the body worker, which joins them there.
 */
export class BodyChunks {
  constructor(
    readonly chunks: readonly Uint8Array[],
    readonly byteLength: number,
  ) {}
}

/**
 * Reads a POST body sent without a Content-Encoding of more than `threshold` bytes (and at most `limit`) by its
 * Content-Length, or of any length in chunks (`Transfer-Encoding: chunked`, whose size is known only once read), into
 * a `BodyChunks` on `req.body`; a chunked body of at most `threshold` bytes becomes one Buffer, as the body reader
 * makes it, and one over `limit` is refused once read (413), as the body reader refuses it. Every other request goes on
 * untouched to the next body reader (`express.raw`), which refuses what is over the limit and inflates compressed
 * bodies.
 * @example router.use('/v2', largeBodyChunks(limit, INLINE_PARSE_BYTES), express.raw({ limit, type: () => true }))
 */
export function largeBodyChunks(limit: number, threshold: number): RequestHandler {
  return (req: Request, _res: Response, next: NextFunction) => {
    const declared = req.headers['content-length'];
    const length = Number(declared);
    const encoding = String(req.headers['content-encoding'] ?? 'identity').toLowerCase();
    const chunked = declared === undefined && req.headers['transfer-encoding'] !== undefined;
    if (req.method !== 'POST' || encoding !== 'identity' || !(chunked || (length > threshold && length <= limit)))
      return next();
    let chunks: Uint8Array[] = [];
    let got = 0;
    req.on('data', (chunk: Buffer) => {
      got += chunk.byteLength;
      // Read to its end and dropped, as the body reader drops a body over its limit before it answers.
      if (got > limit) chunks = [];
      else chunks.push(chunk);
    });
    // Node's HTTP parser delivers at most Content-Length bytes; fewer means the client went away ('aborted').
    req.once('end', () => {
      if (got > limit) return next(entityTooLarge(limit));
      req.body = got > threshold ? new BodyChunks(chunks, got) : Buffer.concat(chunks, got);
      next();
    });
    req.once('error', next);
  };
}

/** The error the body readers give for a body over `limit`, so each router words it as it words theirs. */
function entityTooLarge(limit: number): Error {
  return Object.assign(new Error('request entity too large'), { type: 'entity.too.large', status: 413, limit });
}

/**
 * The chunks as one list the body worker can take by transfer: each chunk that owns its whole buffer (what
 * Node's socket reads give) is handed over as it is; any other is copied.
 */
export function transferableChunks(body: BodyChunks): Uint8Array[] {
  return body.chunks.map(ownedBytes);
}

/**
 * `c` when it owns its whole buffer, else a copy that does. Not `c.slice()`: a Buffer's own `slice` is a view,
 * and transferring its buffer would take away the whole allocation it points into (a socket read holding the
 * next WebSocket frame too, say).
 */
export function ownedBytes(c: Uint8Array): Uint8Array {
  return c.byteOffset === 0 && c.byteLength === c.buffer.byteLength ? c : Uint8Array.prototype.slice.call(c);
}

/**
 * Refuses at once a body whose Content-Length (sent without a Content-Encoding) is over `limit`, and closes the
 * connection after the answer. The body readers only refuse after reading the body off the wire: a client announcing
 * 10^12 bytes and sending none got no answer at all, and one sending them kept the server reading to discard them.
 * @example router.use('/v2', refuseDeclaredOverLimit(limit), largeBodyChunks(limit, INLINE_PARSE_BYTES))
 */
export function refuseDeclaredOverLimit(limit: number): RequestHandler {
  return (req: Request, res: Response, next: NextFunction) => {
    const encoding = String(req.headers['content-encoding'] ?? 'identity').toLowerCase();
    if (encoding !== 'identity' || !(Number(req.headers['content-length']) > limit)) return next();
    res.setHeader('Connection', 'close');
    closeAfterLingering(req);
    next(entityTooLarge(limit));
  };
}

/** How long, and how many bytes, a refused body is still read (and dropped) after its answer before the socket closes. */
const LINGER_MS = 2000;
const LINGER_BYTES = 16 * 1024 * 1024;

/**
 * Makes the connection of `req`, once its answer is sent, close as servers linger: the answer and a FIN go out, and
 * what the client still sends of its body is read and dropped (up to LINGER_BYTES or LINGER_MS) before the socket is
 * destroyed. Destroyed at once with the body still arriving, the socket answers it with a reset, and a client still
 * writing its body (fetch does) lost the 413 it had not read yet.
 */
function closeAfterLingering(req: Request): void {
  const socket = req.socket;
  // Node ends a `Connection: close` response's socket with destroySoon (after the request's body is set to be dumped).
  socket.destroySoon = function (this: typeof socket) {
    this.end();
    let dropped = 0;
    const close = () => {
      clearTimeout(timer);
      this.destroy();
    };
    const timer = setTimeout(close, LINGER_MS);
    timer.unref();
    req.on('data', (chunk: Buffer) => {
      dropped += chunk.byteLength;
      if (dropped > LINGER_BYTES) close();
    });
    req.once('end', close);
    this.once('close', () => clearTimeout(timer));
  };
}
