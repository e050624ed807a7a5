import express from 'express';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { keepServingThroughAcceptErrors, stderrLog, type ServerLog } from '../acceptErrors.ts';
import { LISTEN_BACKLOG } from '../listenBacklog.ts';
import { requireToken } from './auth.ts';
import { metricsRouter } from './routes/metrics.ts';
import type { Studio } from './Studio.ts';

export interface MetricsServer {
  port: number;
  /** `http://HOST:PORT` as the CLI prints it. */
  url: string;
  close(): Promise<void>;
}

/**
 * Serves `GET /metrics` alone on a port of its own, as Triton's metrics server does on 8002 (port 0 picks a free
 * one): the same text as the HTTP port's /metrics, under the same token; any other path is 404.
 * @example const m = await startMetricsServer(studio, '127.0.0.1', 8002); console.log(`metrics listening on ${m.url}`)
 */
export async function startMetricsServer(
  studio: Studio,
  host: string,
  port: number,
  log: ServerLog = stderrLog,
): Promise<MetricsServer> {
  const app = express();
  app.disable('x-powered-by');
  app.use('/metrics', requireToken(studio.token));
  app.use(metricsRouter(studio));
  app.use((_req, res) => void res.status(404).type('text/plain').send('Not Found\n'));
  const server: Server = createServer(app);
  const hostForUrl = host.includes(':') ? `[${host}]` : host;
  await new Promise<void>((resolve, reject) => {
    server.once('error', (err: NodeJS.ErrnoException) =>
      reject(
        new Error(
          `metrics cannot listen on ${hostForUrl}:${port}: ${
            err.code === 'EADDRINUSE'
              ? 'the port is in use (--metrics-port 0 picks a free one, off turns the metrics port off)'
              : err.message
          }`,
        ),
      ),
    );
    server.listen({ port, host, backlog: LISTEN_BACKLOG }, () => resolve());
  });
  server.removeAllListeners('error');
  keepServingThroughAcceptErrors(server, 'metrics', log);
  const bound = (server.address() as AddressInfo).port;
  return {
    port: bound,
    url: `http://${hostForUrl}:${bound}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
