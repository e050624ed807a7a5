import { DEFAULT_WEB_DIST, closeOnSignals, startServer } from '../../main.ts';
import { parseCommandArgs, str, userPath } from '../args.ts';
import { UsageError } from '../errors.ts';
import type { CliIO } from '../io.ts';

/**
 * `serve --repo DIR --port N --host H [--token T]`: prints `listening on http://HOST:PORT` and runs
 * until SIGTERM/SIGINT. Resolves only when the server has stopped.
 */
export async function serveCommand(argv: string[], io: CliIO): Promise<number> {
  const { values } = parseCommandArgs(argv, {
    repo: { type: 'string' }, port: { type: 'string' }, host: { type: 'string' }, token: { type: 'string' }, web: { type: 'string' },
  }, 0);
  const portText = str(values, 'port', process.env.PORT ?? '8080')!;
  const port = Number(portText);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new UsageError(`--port expects 0–65535, got "${portText}"`);
  const token = str(values, 'token', process.env.STUDIO_TOKEN);
  const web = str(values, 'web');
  const server = await startServer({
    repo: userPath(str(values, 'repo', io.defaultRepo)!), port, host: str(values, 'host', '127.0.0.1')!,
    ...(token ? { token } : {}), webDist: web ? userPath(web) : DEFAULT_WEB_DIST,
  });
  io.out(`listening on ${server.url}`);
  for (const p of server.studio.repository.problems) io.err(`warning: ${p.message}`);
  await new Promise<void>((resolve) => {
    closeOnSignals(async () => { await server.close(); resolve(); }, io.err);
  });
  return 0;
}
