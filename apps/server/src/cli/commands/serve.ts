import { DEFAULT_WEB_DIST, closeOnSignals, startServer } from '../../main.ts';
import { startGrpcServer, type GrpcServer } from '../../grpc/server.ts';
import { startMetricsServer, type MetricsServer } from '../../http/metricsServer.ts';
import {
  choiceValue,
  countValue,
  directoryValue,
  parseCommandArgs,
  portValue,
  str,
  traceConfigValue,
  userPath,
} from '../args.ts';
import { cacheFlags } from '../cacheConfig.ts';
import { releaseHeldSignals } from '../heldSignals.ts';
import { tritonRefusals } from '../../repo/tritonRefusals.ts';
import type { CliIO } from '../io.ts';
import { EVENT_LOOP_MODES, describePriority, raiseEventLoop } from '../../eventLoopPriority.ts';

/**
 * `serve --repo DIR --port N --grpc-port N|0|off --metrics-port N|0|off --host H [--token T] [--python PATH]
 * [--import-root DIR]... [--event-loop realtime|slice|off] [--allow-client-shm] [--log-verbose N]
 * [--trace-config [MODE,]SETTING=VALUE]... [--cache-config local,size=N]`: prints `listening on http://HOST:PORT`, `grpc listening
 * on HOST:PORT` (KServe v2 gRPC, default 8001 as Triton's) and, when asked for (Triton's is 8002), `metrics listening
 * on http://HOST:PORT`; runs until SIGTERM/SIGINT. Resolves only when the server has stopped.
 */
export async function serveCommand(argv: string[], io: CliIO): Promise<number> {
  const { values } = parseCommandArgs(
    argv,
    {
      repo: { type: 'string' },
      port: { type: 'string' },
      'grpc-port': { type: 'string' },
      'metrics-port': { type: 'string' },
      host: { type: 'string' },
      token: { type: 'string' },
      web: { type: 'string' },
      python: { type: 'string' },
      'import-root': { type: 'string', multiple: true },
      'event-loop': { type: 'string' },
      'allow-client-shm': { type: 'boolean' },
      'log-verbose': { type: 'string' },
      'trace-config': { type: 'string', multiple: true },
      'cache-config': { type: 'string', multiple: true },
      'response-cache-byte-size': { type: 'string' },
    },
    0,
  );
  // Directories /api/import may open repositories under; none unless given.
  const importRoots = ((values['import-root'] as string[] | undefined) ?? []).map((d) =>
    directoryValue(d, 'import-root'),
  );
  // The interpreter for Python-backend models (and their auto_complete_config); STUDIO_PYTHON is the same setting.
  const python = str(values, 'python');
  if (python) process.env.STUDIO_PYTHON = python.includes('/') ? userPath(python) : python;
  const port = portValue(str(values, 'port', process.env.PORT ?? '8080')!, 'port')!;
  const grpcPort = portValue(str(values, 'grpc-port', process.env.GRPC_PORT ?? '8001')!, 'grpc-port', true);
  // Off unless asked for: /metrics is on the HTTP port too, and a second fixed port would clash between servers.
  const metricsPort = portValue(str(values, 'metrics-port', process.env.METRICS_PORT ?? 'off')!, 'metrics-port', true);
  const token = str(values, 'token', process.env.STUDIO_TOKEN);
  // Triton's --log-verbose: 1 and above show the models' verbose lines (pb_utils.Logger.log_verbose).
  const logVerbose = countValue(str(values, 'log-verbose', '0')!, 'log-verbose');
  const trace = traceConfigValue((values['trace-config'] as string[] | undefined) ?? []);
  // Triton's response cache, for the models whose config enables it.
  const cache = cacheFlags(
    (values['cache-config'] as string[] | undefined) ?? [],
    str(values, 'response-cache-byte-size'),
  );
  if (cache.warning) io.err(cache.warning);
  const web = str(values, 'web');
  const host = str(values, 'host', '127.0.0.1')!;
  // The event loop is raised to wake ahead of the model workers (eventLoopPriority.ts) once the server is up: its
  // start-up work needs no priority, and on a shared machine (a test suite's servers) it would take CPUs from others.
  const eventLoop = choiceValue(
    str(values, 'event-loop', process.env.STUDIO_EVENT_LOOP ?? 'realtime')!,
    'event-loop',
    EVENT_LOOP_MODES,
  );
  // The signals are handled from the start: a SIGTERM while the models load ends their loads (a stub in
  // `initialize` is killed) and exits as after listening, where Node's default would die at once.
  const stopping = new AbortController();
  let server: Awaited<ReturnType<typeof startServer>> | undefined;
  let grpc: GrpcServer | undefined;
  let metrics: MetricsServer | undefined;
  const starting = (async () => {
    server = await startServer({
      repo: directoryValue(str(values, 'repo', io.defaultRepo)!, 'repo'),
      port,
      host,
      ...(token ? { token } : {}),
      webDist: web ? userPath(web) : DEFAULT_WEB_DIST,
      modelLog: io.err,
      log: io.err,
      ...(importRoots.length > 0 ? { importRoots } : {}),
      ...(values['allow-client-shm'] === true ? { allowClientShm: true } : {}),
      logVerbose,
      trace,
      ...(cache.cache ? { responseCache: cache.cache } : {}),
      signal: stopping.signal,
    });
    if (grpcPort !== null) grpc = await startGrpcServer(server.studio, host, grpcPort, io.err);
    if (metricsPort !== null) metrics = await startMetricsServer(server.studio, host, metricsPort, io.err);
  })();
  const stopped = new Promise<void>((resolve) => {
    closeOnSignals(async () => {
      stopping.abort();
      await starting.catch(() => undefined);
      await grpc?.close();
      await metrics?.close();
      await server?.close();
      resolve();
    }, io.err);
  });
  releaseHeldSignals();
  try {
    await starting;
  } catch (err) {
    if (stopping.signal.aborted) return stopped.then(() => 0);
    await grpc?.close();
    await server?.close();
    throw err;
  }
  if (stopping.signal.aborted) return stopped.then(() => 0);
  io.err(describePriority(await raiseEventLoop(eventLoop)));
  if (stopping.signal.aborted) return stopped.then(() => 0);
  io.out(`listening on ${server!.url}`);
  if (grpc) io.out(`grpc listening on ${grpc.address}`);
  if (metrics) io.out(`metrics listening on ${metrics.url}`);
  for (const p of server!.studio.repository.problems) io.err(`warning: ${p.message}`);
  for (const line of tritonRefusals(server!.studio.repository)) io.err(`warning: Triton would not load ${line}`);
  await stopped;
  return 0;
}
