import type { RequestListener, Server } from 'node:http';

/** The idle time, in seconds, the server tells its clients a kept-alive connection stays open (`Keep-Alive`). */
export const KEEP_ALIVE_HINT_S = 5;

/**
 * How much longer than it tells them the server really keeps an idle connection. A client may reuse a connection up
 * to the hint (undici's fetch: the hint less 1 s, read off a coarse timer that runs late on a busy process), and a
 * server that closes soon after the hint resets a request already on its way: its keep-alive timer fires in the
 * timers phase, before the poll phase reads the request. Node's own margin (1 s past the hint) was not enough on a
 * busy 2-core machine: fetch failed with `ECONNRESET` 1 in 24 times, the server's `socketOnTimeout` destroying the
 * idle connection fetch had just written its request to.
 */
export const KEEP_ALIVE_GRACE_MS = 5000;

/**
 * `listener`, with every response that keeps its connection saying so with the hint (set by hand, Node leaves its own
 * out), and `server` keeping idle connections for the hint plus the grace.
 * @example const server = createServer(); server.on('request', keepAliveHint(server, listener));
 */
export function keepAliveHint(server: Server, listener: RequestListener): RequestListener {
  server.keepAliveTimeout = KEEP_ALIVE_HINT_S * 1000 + KEEP_ALIVE_GRACE_MS;
  return (req, res) => {
    if (res.shouldKeepAlive) res.setHeader('Keep-Alive', `timeout=${KEEP_ALIVE_HINT_S}`);
    listener(req, res);
  };
}
