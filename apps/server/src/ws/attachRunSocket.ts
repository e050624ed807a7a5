import type { IncomingMessage, Server } from 'node:http';
import type { Duplex } from 'node:stream';
import { PROTOCOL_VERSION } from '@ensemble-studio/core';
import { WebSocketServer, type ServerOptions, type WebSocket } from 'ws';
import { addressedHost, bearerToken, fromOwnOrigin, hostAllowed, tokenMatches } from '../http/auth.ts';
import { BodyChunks } from '../http/bodyChunks.ts';
import { INLINE_PARSE_BYTES } from '../http/bodyParser.ts';
import { limitMessage } from '../http/limits.ts';
import type { Studio } from '../http/Studio.ts';
import { startHeartbeat, trackPongs } from './heartbeat.ts';
import { INVALID_UTF8_REASON } from './parseMessage.ts';
import { RunClient } from './RunClient.ts';

const WS_PATH = '/ws';
const TOKEN_PROTOCOL_PREFIX = 'studio-token.';
/** Messages of at least this many bytes reach RunClient as their pieces (the size above which text is parsed off the main thread). */
export const UNJOINED_MESSAGE_BYTES = INLINE_PARSE_BYTES + 1;

export interface RunSocket {
  wss: WebSocketServer;
  /** Connected clients. */
  clients(): number;
  /** Cancels every client's runs and closes the sockets (1001 going away). */
  close(): Promise<void>;
}

function reject(socket: Duplex, status: number, text: string, body: string): void {
  socket.end(
    `HTTP/1.1 ${status} ${text}\r\nConnection: close\r\nContent-Type: text/plain\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
  );
}

/** Token from `Authorization: Bearer`, the `studio-token.<T>` subprotocol, or `?token=`. */
function requestToken(req: IncomingMessage, url: URL): string | undefined {
  const offered = String(req.headers['sec-websocket-protocol'] ?? '')
    .split(',')
    .map((p) => p.trim());
  const proto = offered.find((p) => p.startsWith(TOKEN_PROTOCOL_PREFIX));
  return bearerToken(req) ?? proto?.slice(TOKEN_PROTOCOL_PREFIX.length) ?? url.searchParams.get('token') ?? undefined;
}

function hello(studio: Studio): string {
  const eps = studio.engine.health().executionProviders.available;
  return JSON.stringify({
    type: 'hello',
    protocol: PROTOCOL_VERSION,
    server: `ensemble-studio ${studio.version}`,
    executionProviders: eps,
  });
}

/**
 * The run WebSocket at `/ws` on an existing HTTP server (ws `noServer` + `upgrade`): auth and
 * Origin are checked during the upgrade; each client gets a RunClient; a heartbeat drops dead
 * clients (their runs cancelled, sequences ended).
 * @example const socket = attachRunSocket(server, studio); … await socket.close()
 */
export function attachRunSocket(server: Server, studio: Studio): RunSocket {
  const wss = new WebSocketServer({
    noServer: true,
    // the hard cap; messages between maxWsMessageBytes and this get an error naming the limit
    maxPayload: studio.limits.maxWsMessageBytes + 1024 * 1024,
    // One message per turn of the event loop: by default ws emits every message of a chunk it reads at once, so
    // 2,000 small messages in one write ran 2,000 handlers back to back while every other client waited.
    allowSynchronousEvents: false,
    handleProtocols: (protocols) => [...protocols].find((p) => p.startsWith(TOKEN_PROTOCOL_PREFIX)) ?? false,
    // Larger messages come as the socket reads they arrived in (our patch of ws, patches/): joined by ws, 34 MB meant
    // 8,700 fresh pages touched in one turn (133 ms of CPU) while every other client waited; the body worker joins them.
    unjoinedMessageBytes: UNJOINED_MESSAGE_BYTES,
  } as ServerOptions);
  const clients = new Map<WebSocket, RunClient>();
  server.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    const url = new URL(req.url ?? '/', 'http://localhost');
    if (url.pathname !== WS_PATH) return reject(socket, 404, 'Not Found', `no WebSocket endpoint at ${url.pathname}\n`);
    if (!hostAllowed(addressedHost(req.url, req.headers.host), studio.token))
      return reject(
        socket,
        403,
        'Forbidden',
        'without --token the studio only accepts connections to localhost or 127.0.0.1\n',
      );
    if (!fromOwnOrigin(req.headers, req.headers.host))
      return reject(socket, 403, 'Forbidden', 'Origin does not match the server host\n');
    if (studio.token && !tokenMatches(studio.token, requestToken(req, url)))
      return reject(socket, 401, 'Unauthorized', 'missing or wrong token\n');
    wss.handleUpgrade(req, socket, head, (ws) => wss.emit('connection', ws, req));
  });
  wss.on('connection', (ws: WebSocket) => {
    explainProtocolClose(ws, studio.limits.maxWsMessageBytes);
    const client = new RunClient(ws, studio);
    clients.set(ws, client);
    trackPongs(ws);
    ws.on('message', (data, isBinary) => client.onMessage(received(data), isBinary));
    ws.on('close', () => {
      client.close();
      clients.delete(ws);
    });
    // After a protocol error ws has queued its close frame and ends the socket once that is written; terminating
    // here would drop the frame and the reason in it.
    ws.on('error', () => {
      if (ws.readyState !== ws.CLOSING) ws.terminate();
    });
    ws.send(hello(studio));
  });
  const stopHeartbeat = startHeartbeat(wss, studio.limits.heartbeatMs);
  return {
    wss,
    clients: () => clients.size,
    close: async () => {
      stopHeartbeat();
      for (const [ws, client] of clients) {
        client.close();
        ws.close(1001, 'server shutting down');
      }
      await new Promise<void>((resolve) => wss.close(() => resolve()));
      for (const ws of clients.keys()) ws.terminate();
    },
  };
}

/**
 * `ws` closes without a reason where it refuses a frame: over its maxPayload, as soon as the frame's header announces
 * it (nothing is buffered), with 1009; text that is not UTF-8 with 1007. The reason sent instead names the limit or
 * the fault, the only place a client can read it (and says the same as RunClient's 1007 for a large message).
 */
function explainProtocolClose(ws: WebSocket, max: number): void {
  const close = ws.close.bind(ws);
  ws.close = (code?: number, reason?: string | Buffer) => {
    if (reason) return close(code, reason);
    if (code === 1009) return close(code, limitMessage('message too big', 'maxWsMessageBytes', max));
    return close(code, code === 1007 ? INVALID_UTF8_REASON : reason);
  };
}

/** A message as ws hands it over: one Buffer, or (from UNJOINED_MESSAGE_BYTES on) the pieces it arrived in. */
function received(data: Buffer | ArrayBuffer | Buffer[]): Buffer | BodyChunks {
  if (Buffer.isBuffer(data)) return data;
  if (Array.isArray(data))
    return new BodyChunks(
      data,
      data.reduce((n, b) => n + b.byteLength, 0),
    );
  return Buffer.from(data);
}
