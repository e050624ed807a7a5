import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';

/**
 * Requests of one connection waiting behind its request in progress before the connection stops being read. Node's
 * parser still hands over every request of a chunk it has read (about 1,200 small GETs per 64 KiB), so the queue can
 * pass this by one chunk's worth; the point is that it cannot grow without bound.
 */
const MAX_WAITING = 64;

interface Connection {
  busy: boolean;
  waiting: [IncomingMessage, ServerResponse][];
  pausedByUs: boolean;
}

/** True when `res` is the connection's last response (Node closes the connection after it). */
function closesConnection(res: ServerResponse): boolean {
  return !res.shouldKeepAlive || /(^|,)\s*close\s*(,|$)/i.test(String(res.getHeader('connection') ?? ''));
}

/**
 * `handler`, given each connection's requests one at a time: a pipelined request starts once the response before it
 * has finished, one per turn of the event loop. Node's HTTP parser emits every request of a chunk it reads at once,
 * so 3,000 pipelined `GET /v2/models/ocr/config` in one write ran 3,000 handlers back to back and held every other
 * client for 3.4 s. Responses go out in request order either way (HTTP/1.1), so a pipelining client loses nothing;
 * a client with more than `MAX_WAITING` requests queued is not read from until its queue shrinks.
 * @example const server = createServer(oneRequestAtATime(app))
 */
export function oneRequestAtATime(handler: RequestListener): RequestListener {
  const connections = new WeakMap<Socket, Connection>();

  const start = (req: IncomingMessage, res: ServerResponse, conn: Connection, socket: Socket): void => {
    conn.busy = true;
    let done = false;
    const next = () => {
      if (done) return;
      done = true;
      // A connection that has gone away, or that this response closes, has no one to answer: its queued requests
      // are dropped, not run (a request smuggled behind a refused one must not run unseen).
      if (socket.destroyed || closesConnection(res)) conn.waiting.length = 0;
      const queued = conn.waiting.shift();
      if (conn.pausedByUs && conn.waiting.length < MAX_WAITING / 2) {
        conn.pausedByUs = false;
        socket.resume();
      }
      if (!queued) conn.busy = false;
      // The next request runs in a later turn, after whatever I/O of other clients is ready.
      else setImmediate(() => start(queued[0], queued[1], conn, socket));
    };
    res.once('finish', next);
    res.once('close', next);
    handler(req, res);
  };

  return (req, res) => {
    const socket = req.socket;
    let conn = connections.get(socket);
    if (!conn) {
      const c: Connection = { busy: false, waiting: [], pausedByUs: false };
      connections.set(socket, c);
      // Node resumes the socket itself after every response (it reads the finished request's body to its end), so
      // a pause made once did not hold: a client pipelining without end while reading its answers had 550,000
      // requests queued in 4 s (+900 MB) and, when it closed, held everyone else for seconds while they were dropped.
      socket.on('resume', () => {
        if (c.pausedByUs) socket.pause();
      });
      conn = c;
    }
    if (!conn.busy) return start(req, res, conn, socket);
    conn.waiting.push([req, res]);
    if (conn.waiting.length >= MAX_WAITING && !conn.pausedByUs) {
      conn.pausedByUs = true;
      socket.pause();
    }
  };
}
