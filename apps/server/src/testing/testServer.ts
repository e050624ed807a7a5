import type { Limits } from '../http/limits.ts';
import { startServer, type RunningServer } from '../main.ts';
import { makeTestRepository } from './testRepository.ts';
import type { TraceValues } from '../trace/traceSetting.ts';

/**
 * A real server (engine included) on an ephemeral port over a fresh test repository.
 * @example const s = await startTestServer(); await fetch(`${s.url}/api/health`); await s.close()
 */
export async function startTestServer(
  opts: {
    limits?: Partial<Limits>;
    token?: string;
    webDist?: string;
    repo?: string;
    importRoots?: string[];
    allowClientShm?: boolean;
    trace?: TraceValues;
  } = {},
): Promise<RunningServer & { repo: string }> {
  const repo = opts.repo ?? makeTestRepository();
  const s = await startServer({
    repo,
    port: 0,
    host: '127.0.0.1',
    webDist: opts.webDist ?? '/nonexistent',
    ...(opts.token ? { token: opts.token } : {}),
    ...(opts.limits ? { limits: opts.limits } : {}),
    ...(opts.importRoots ? { importRoots: opts.importRoots } : {}),
    ...(opts.allowClientShm ? { allowClientShm: true } : {}),
    ...(opts.trace ? { trace: opts.trace } : {}),
  });
  return { ...s, repo };
}

/** fetch + JSON body helper. */
export async function call(
  url: string,
  method = 'GET',
  body?: unknown,
  headers: Record<string, string> = {},
): Promise<{ status: number; json: any; text: string; headers: Headers }> {
  const r = await fetch(url, {
    method,
    headers: { ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...headers },
    ...(body === undefined ? {} : { body: typeof body === 'string' ? body : JSON.stringify(body) }),
  });
  return readResponse(r);
}

/**
 * A response's status, text, and body parsed as JSON (undefined when it is not JSON).
 * @example const { status, json } = await readResponse(await fetch(url))
 */
export async function readResponse(
  r: Response,
): Promise<{ status: number; json: any; text: string; headers: Headers }> {
  const text = await r.text();
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: r.status, json, text, headers: r.headers };
}
