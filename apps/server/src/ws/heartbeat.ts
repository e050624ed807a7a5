import type { WebSocket, WebSocketServer } from 'ws';

const alive = new WeakSet<WebSocket>();

/** Marks a socket alive now and on every pong. */
export function trackPongs(ws: WebSocket): void {
  alive.add(ws);
  ws.on('pong', () => alive.add(ws));
}

/**
 * The ws README heartbeat: every `intervalMs`, a socket that has not answered the previous ping
 * is terminated (its 'close' handler cancels its runs); the others are pinged.
 * @returns a function that stops the heartbeat.
 * @example const stop = startHeartbeat(wss, 15_000)
 */
export function startHeartbeat(wss: WebSocketServer, intervalMs: number): () => void {
  const timer = setInterval(() => {
    for (const ws of wss.clients) {
      if (!alive.has(ws)) {
        ws.terminate();
        continue;
      }
      alive.delete(ws);
      ws.ping();
    }
  }, intervalMs);
  timer.unref();
  return () => clearInterval(timer);
}
