// Starting studio servers for the fuzz, stress and e2e tests: in-process (fast, inspectable) or as the real CLI process.
import { spawn, type ChildProcess } from 'node:child_process';
import { copyFileSync, cpSync, linkSync, mkdirSync, statSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { startServer, type RunningServer } from '../../apps/server/src/main.ts';
import type { Limits } from '../../apps/server/src/http/limits.ts';
import { makeTestRepository } from '../../apps/server/src/testing/testRepository.ts';
import { readResponse } from '../../apps/server/src/testing/testServer.ts';
import { EXAMPLES_DIR, ROOT } from './mutate.ts';
import { removeTempDir, tempDir } from './tempDir.ts';

export { EXAMPLES_DIR };

/**
 * A real server (engine included) in this process on an ephemeral loopback port.
 * @example const s = await startStudio({ repo: EXAMPLES_DIR }); … await s.close()
 */
export async function startStudio(
  opts: { repo?: string; limits?: Partial<Limits>; token?: string } = {},
): Promise<RunningServer> {
  return startServer({
    repo: opts.repo ?? makeTestRepository(),
    port: 0,
    host: '127.0.0.1',
    webDist: '/nonexistent',
    ...(opts.token ? { token: opts.token } : {}),
    ...(opts.limits ? { limits: opts.limits } : {}),
  });
}

/**
 * A private copy of the bundled examples that a test may change, in a `tempDir` (removed when the test, or the file,
 * that made it finishes). ONNX files are copied too (a test may corrupt one) unless `linkModels`: then they are hard
 * links to the examples' own (44 MB less to copy; copies across filesystems), for tests that never write a model
 * file — writing through a link would change the examples themselves. Not symlinks: the studio refuses to export a
 * file whose real path lies outside the repository.
 */
export function copyExamples(opts: { linkModels?: boolean } = {}): string {
  const dir = tempDir('studio-examples-');
  const models: string[] = [];
  const copyOrCollect = (src: string) => {
    if (opts.linkModels !== true || !src.endsWith('.onnx') || !statSync(src).isFile()) return true;
    models.push(src);
    return false;
  };
  cpSync(EXAMPLES_DIR, dir, { recursive: true, filter: copyOrCollect });
  for (const src of models) {
    const dest = join(dir, relative(EXAMPLES_DIR, src));
    mkdirSync(dirname(dest), { recursive: true });
    try {
      linkSync(src, dest);
    } catch {
      copyFileSync(src, dest);
    }
  }
  return dir;
}

/** Removes a directory from `copyExamples` or `tempDir` now (after the server using it has stopped). */
export function removeDir(dir: string): void {
  removeTempDir(dir);
}

export interface StudioProcess {
  url: string;
  child: ChildProcess;
  output(): string;
  /** Resolves with the exit code/signal and the time from `since` (ms). */
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null; atMs: number }>;
}

/**
 * `node apps/server/bin/ensemble-studio.mjs serve --port 0 --grpc-port 0 --repo DIR` as a child process (gRPC on a
 * free port, so studios started side by side do not fight over 8001); resolves once it prints
 * `listening on http://HOST:PORT`. The caller must kill it. `opts.nodeArgs` go before the script (a preload such as
 * `turnMonitor.mjs`), `opts.env` over this process's environment.
 */
export async function spawnStudio(
  repo: string,
  extraArgs: string[] = [],
  timeoutMs = 120_000,
  opts: { nodeArgs?: string[]; env?: Record<string, string> } = {},
): Promise<StudioProcess> {
  // One node process (the launcher runs the CLI's bundle in its own process), so a signal sent to `child` reaches the
  // server itself.
  const child = spawn(
    process.execPath,
    [
      ...(opts.nodeArgs ?? []),
      'apps/server/bin/ensemble-studio.mjs',
      'serve',
      '--port',
      '0',
      '--grpc-port',
      '0',
      '--host',
      '127.0.0.1',
      '--repo',
      repo,
      ...extraArgs,
    ],
    {
      cwd: ROOT,
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, FORCE_COLOR: '0', ...opts.env },
    },
  );
  let out = '';
  child.stdout!.on('data', (d: Buffer) => {
    out += d.toString();
  });
  child.stderr!.on('data', (d: Buffer) => {
    out += d.toString();
  });
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null; atMs: number }>((resolve) =>
    child.on('exit', (code, signal) => resolve({ code, signal, atMs: Date.now() })),
  );
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`server did not start in ${timeoutMs} ms:\n${out}`)), timeoutMs);
    const onData = () => {
      const m = /listening on (http:\/\/\S+)/.exec(out);
      if (m) {
        clearTimeout(timer);
        resolve(m[1]!);
      }
    };
    child.stdout!.on('data', onData);
    void exited.then(({ code }) => {
      clearTimeout(timer);
      reject(new Error(`server exited (${code}) before listening:\n${out}`));
    });
  });
  return { url, child, output: () => out, exited };
}

/** fetch returning status and parsed JSON (undefined when the body is not JSON). */
export async function http(
  url: string,
  init: { method?: string; body?: string | Uint8Array; headers?: Record<string, string> } = {},
): Promise<{ status: number; json: any; text: string }> {
  const body =
    init.body === undefined ? {} : { body: typeof init.body === 'string' ? init.body : Buffer.from(init.body) };
  const r = await fetch(url, {
    method: init.method ?? 'GET',
    ...body,
    headers: { 'content-type': 'application/json', ...init.headers },
  });
  return readResponse(r);
}
