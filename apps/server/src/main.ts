import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { keepServingThroughAcceptErrors, stderrLog, type ServerLog } from './acceptErrors.ts';
import { dirname, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { disableOnnxRuntimeTelemetry } from './cli/onnxTelemetry.ts';
import { Engine, servingLoadConcurrency } from './engine/index.ts';
import { isLoopbackHost } from './http/auth.ts';
import { continueWhenRead } from './http/continueWhenRead.ts';
import { createApp } from './http/createApp.ts';
import { healthFirst } from './http/healthFirst.ts';
import { warmGraphs } from './http/servedModels.ts';
import { keepAliveHint } from './http/keepAlive.ts';
import { DEFAULT_LIMITS, type Limits } from './http/limits.ts';
import { Studio } from './http/Studio.ts';
import { TRACE_DEFAULTS } from './trace/traceConfig.ts';
import type { TraceValues } from './trace/traceSetting.ts';
import { TraceSettings } from './trace/traceSettings.ts';
import { LogSettings } from './http/logSettings.ts';
import { oneRequestAtATime } from './http/pipelining.ts';
import { LISTEN_BACKLOG } from './listenBacklog.ts';
import { loadRepository } from './repo/loadRepository.ts';
import type { Repository } from './repo/types.ts';
import { attachRunSocket, type RunSocket } from './ws/attachRunSocket.ts';

const HERE = dirname(fileURLToPath(import.meta.url));
/** The bundled examples: the default repository. */
export const DEFAULT_REPO = resolve(HERE, '../../../examples/model_repository');
/** The built web app. */
export const DEFAULT_WEB_DIST = resolve(HERE, '../../web/dist');

export interface ServeConfig {
  repo: string;
  port: number;
  host: string;
  token?: string;
  webDist?: string;
  limits?: Partial<Limits>;
  intraOpThreads?: number;
  /** Directories `/api/import` may open repositories under (none: import is refused). */
  importRoots?: string[];
  /** Clients may register system shared memory regions (`--allow-client-shm`, as Triton's flag). */
  allowClientShm?: boolean;
  /** The server log's verbose level at start (`--log-verbose`, as Triton's flag): 1 shows models' verbose lines. */
  logVerbose?: number;
  /** The trace settings at start (`--trace-config`, as Triton's flag); tracing off when not given. */
  trace?: TraceValues;
  /** Triton's response cache (`--cache-config local,size=N`); none when not given. */
  responseCache?: { sizeBytes: number };
  /** The server log of Python models' lines (print, stderr, Logger), one line each. */
  modelLog?: (line: string) => void;
  /** The server's own lines (a connection it could not accept); stderr when not given. */
  log?: ServerLog;
  /** Stops the start-up (a signal before it listens): the models loading are ended and `startServer` rejects. */
  signal?: AbortSignal;
}

export interface RunningServer {
  url: string;
  port: number;
  server: Server;
  studio: Studio;
  socket: RunSocket;
  /** Stops accepting, lets runs finish within `shutdownGraceMs`, cancels the rest, closes the engine. */
  close(): Promise<void>;
}

/** A configuration the server refuses to start with (e.g. a public host without a token). */
class ConfigError extends Error {}

/**
 * Checks that a host/token pair is safe to listen with: anything but loopback needs a token.
 * @throws ConfigError
 */
function checkListenConfig(host: string, token: string | undefined): void {
  if (!isLoopbackHost(host) && !token) {
    throw new ConfigError(
      `refusing to listen on ${host} without --token: only loopback hosts (127.0.0.1, ::1, localhost) may run without one`,
    );
  }
  if (token !== undefined && !/^[A-Za-z0-9._~-]{8,256}$/.test(token)) {
    throw new ConfigError(
      '--token must be 8–256 characters of A–Z a–z 0–9 . _ ~ - (it travels in a WebSocket subprotocol)',
    );
  }
}

async function createEngine(
  repository: Repository,
  config: ServeConfig,
  logSettings: LogSettings,
  loadConcurrency?: number,
  signal?: AbortSignal,
) {
  const log = config.modelLog;
  const limits = { ...DEFAULT_LIMITS, ...config.limits };
  return Engine.create(
    {
      repository,
      ...(loadConcurrency ? { loadConcurrency } : {}),
      ...(log
        ? {
            // What Triton's log settings (logSettings.ts) let through, in their format.
            onModelLog: (_m: string, instance: string, level: string, message: string) => {
              if (logSettings.shows(level))
                log(logSettings.format(`[${instance}] ${level === 'info' ? '' : `${level}: `}${message}`));
            },
          }
        : {}),
      ...(config.intraOpThreads ? { intraOpThreads: config.intraOpThreads } : {}),
      ...(config.limits?.maxConcurrentRuns ? { maxConcurrentRuns: config.limits.maxConcurrentRuns } : {}),
      tensorLimits: { maxTensorElements: limits.maxTensorElements, maxBodyBytes: limits.maxBodyBytes },
      ...(config.responseCache ? { responseCache: config.responseCache } : {}),
    },
    signal,
  );
}

/**
 * config → loadRepository → Engine.create → createApp → http.createServer → attachRunSocket → listen.
 * `port: 0` picks a free port (see `url`).
 * @example const s = await startServer({ repo: DEFAULT_REPO, port: 0, host: '127.0.0.1' }); console.log(s.url)
 */
export async function startServer(config: ServeConfig): Promise<RunningServer> {
  checkListenConfig(config.host, config.token);
  const repository = await loadRepository(config.repo);
  config.signal?.throwIfAborted();
  const logSettings = new LogSettings(config.logVerbose);
  const engine = await createEngine(repository, config, logSettings, undefined, config.signal);
  const studio = new Studio({
    repository,
    engine,
    token: config.token,
    limits: config.limits,
    // Another repository opened while serving loads a model at a time per spare core (servingLoadConcurrency).
    createEngine: (r) => createEngine(r, config, logSettings, servingLoadConcurrency()),
    logSettings,
    traces: new TraceSettings(config.trace ?? TRACE_DEFAULTS, (message) => (config.log ?? stderrLog)(message)),
    ...(config.importRoots ? { importRoots: config.importRoots } : {}),
    ...(config.allowClientShm ? { allowClientShm: true } : {}),
  });
  // Compiled now rather than in the turn of the first request that names a graph or lists the repository.
  warmGraphs(studio);
  const app = createApp({ studio, webDist: config.webDist ?? DEFAULT_WEB_DIST });
  const server = createServer();
  const listener = keepAliveHint(server, oneRequestAtATime(healthFirst(app, studio.token)));
  server.on('request', listener);
  server.on('checkContinue', continueWhenRead(listener));
  const socket = attachRunSocket(server, studio);
  await new Promise<void>((res, rej) => {
    server.once('error', rej);
    server.listen({ port: config.port, host: config.host, backlog: LISTEN_BACKLOG }, () => {
      server.off('error', rej);
      res();
    });
  }).catch(async (err: unknown) => {
    await engine.close();
    throw err;
  });
  keepServingThroughAcceptErrors(server, 'HTTP', config.log ?? stderrLog);
  const port = (server.address() as AddressInfo).port;
  const hostForUrl = config.host.includes(':') ? `[${config.host}]` : config.host;
  let closing: Promise<void> | undefined;
  const close = () => (closing ??= shutdown(server, socket, studio));
  return { url: `http://${hostForUrl}:${port}`, port, server, studio, socket, close };
}

async function shutdown(server: Server, socket: RunSocket, studio: Studio): Promise<void> {
  const stopped = new Promise<void>((res) => server.close(() => res()));
  server.closeIdleConnections();
  const deadline = Date.now() + studio.limits.shutdownGraceMs;
  while (studio.runsInFlight > 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
  await socket.close();
  server.closeAllConnections();
  await stopped;
  await studio.engine.close();
  studio.sharedMemory.close();
  // Triton writes the traces it holds at shutdown.
  await studio.traces.close();
}

/** Runs `close` on SIGTERM/SIGINT once; a second signal exits at once. */
export function closeOnSignals(
  close: () => Promise<void>,
  log: (line: string) => void = (l) => process.stderr.write(`${l}\n`),
): void {
  let stopping = false;
  const onSignal = (sig: NodeJS.Signals) => {
    if (stopping) process.exit(130);
    stopping = true;
    log(`${sig}: shutting down`);
    close().then(
      () => process.exit(0),
      (err: unknown) => {
        log(`shutdown failed: ${(err as Error).message}`);
        process.exit(1);
      },
    );
  };
  process.on('SIGTERM', onSignal);
  process.on('SIGINT', onSignal);
}

async function mainFromEnv(): Promise<void> {
  disableOnnxRuntimeTelemetry();
  const env = process.env;
  try {
    const s = await startServer({
      repo: resolve(env.INIT_CWD ?? process.cwd(), env.STUDIO_REPO ?? DEFAULT_REPO),
      port: Number(env.PORT ?? 8080),
      host: env.HOST ?? '127.0.0.1',
      ...(env.STUDIO_TOKEN ? { token: env.STUDIO_TOKEN } : {}),
    });
    process.stdout.write(`listening on ${s.url}\n`);
    closeOnSignals(s.close);
  } catch (err) {
    process.stderr.write(`ensemble-studio: ${(err as Error).message}\n`);
    process.exit(err instanceof ConfigError ? 2 : 1);
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(resolve(process.argv[1])).href) void mainFromEnv();
