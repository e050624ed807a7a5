import { existsSync } from 'node:fs';
import { join } from 'node:path';
import express, { type Express } from 'express';
import { requireLoopbackHost, requireSameOrigin, requireToken } from './auth.ts';
import { ApiError, errorHandler } from './errors.ts';
import { refuseAmbiguousFraming } from './framing.ts';
import { apiRouter } from './routes/api.ts';
import { kserveRouter } from './routes/kserve.ts';
import { metricsRouter } from './routes/metrics.ts';
import { modelSourceRouter } from './routes/modelSource.ts';
import type { Studio } from './Studio.ts';

export interface AppDeps {
  studio: Studio;
  /** The built web app (`apps/web/dist`); served with an SPA fallback when it exists. */
  webDist?: string;
}

const NOT_SPA = /^\/(api|v2|ws|metrics)(\/|$)/;

function serveWeb(app: Express, webDist: string | undefined): void {
  const index = webDist ? join(webDist, 'index.html') : undefined;
  if (webDist && index && existsSync(index)) {
    app.use(express.static(webDist, { index: 'index.html', fallthrough: true }));
    app.get('/{*splat}', (req, res, next) => (NOT_SPA.test(req.path) ? next() : res.sendFile(index)));
    return;
  }
  app.get(
    '/',
    (_req, res) =>
      void res
        .type('text/plain')
        .send(
          'Ensemble Studio server: the web app is not built (run `pnpm build:web`). The API is under /api, KServe v2 under /v2.\n',
        ),
  );
}

/**
 * The studio's Express app built from its dependencies; it never listens (main.ts does).
 * Routes: `/api/*` (JSON API), `/v2/*` (KServe v2), `/metrics` (Prometheus), the web app.
 * @example const server = http.createServer(createApp({ studio, webDist })); attachRunSocket(server, studio)
 */
export function createApp(deps: AppDeps): Express {
  const { studio } = deps;
  const app = express();
  app.disable('x-powered-by');
  app.set('query parser', 'simple');
  app.use((_req, res, next) => {
    res.setHeader('X-Content-Type-Options', 'nosniff');
    next();
  });
  app.use(refuseAmbiguousFraming());
  app.use(requireLoopbackHost(studio.token));
  app.use(requireSameOrigin());
  const auth = requireToken(studio.token);
  app.use('/api/models', auth, modelSourceRouter(studio));
  app.use('/api', auth, apiRouter(studio));
  app.use('/v2', auth);
  app.use(kserveRouter(studio));
  app.use('/metrics', auth);
  app.use(metricsRouter(studio));
  serveWeb(app, deps.webDist);
  app.use((req, _res, next) =>
    next(new ApiError(404, 'not-found', `no route ${req.method} ${req.path.slice(0, 200)}`)),
  );
  app.use(errorHandler(studio.limits.maxBodyBytes));
  return app;
}
