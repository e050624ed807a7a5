import type { Server } from 'node:net';

/** Where the server's own lines go (the CLI's stderr). */
export type ServerLog = (line: string) => void;

/** The default: a line on stderr. */
export const stderrLog: ServerLog = (line) => process.stderr.write(`${line}\n`);

/**
 * Keeps a listening server serving through a failed accept: Node reports it as the server's 'error' event, which
 * with no listener throws and ends the process, though the listener itself goes on listening and only that one
 * connection is lost. The failure is logged (at most once a second, with how many were not logged, since one
 * that persists comes back on every readiness of the listening socket).
 * @example keepServingThroughAcceptErrors(server, 'HTTP', stderrLog)
 */
export function keepServingThroughAcceptErrors(server: Server, what: string, log: ServerLog): void {
  let lastLogged = -Infinity;
  let unlogged = 0;
  server.on('error', (err: NodeJS.ErrnoException) => {
    const now = performance.now();
    if (now - lastLogged < 1000) {
      unlogged++;
      return;
    }
    const more = unlogged > 0 ? ` (${unlogged} more since the last line)` : '';
    lastLogged = now;
    unlogged = 0;
    log(`${what}: a connection could not be accepted: ${err.code ?? err.message}${more}; still listening`);
  });
}
