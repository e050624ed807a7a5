// What went wrong with a python process, in words a user can act on, and the small parsing its frames need.

/** A request's `parameters` JSON string as an object ({} when it is not one). */
export function parseParams(v: unknown): Record<string, unknown> {
  if (typeof v !== 'string' || v === '') return {};
  try {
    const o = JSON.parse(v) as unknown;
    return o !== null && typeof o === 'object' && !Array.isArray(o) ? (o as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}

/** A message with the traceback (the user's frames) under it. */
export function withTraceback(message: string, traceback: unknown): string {
  return typeof traceback === 'string' && traceback.trim() ? `${message}\n${traceback.trimEnd()}` : message;
}

/** Why the interpreter could not be started. */
export function spawnProblem(python: string, err: Error & { code?: string }): string {
  return err.code === 'ENOENT'
    ? `could not start: no python interpreter '${python}' (install python3 with numpy, e.g. apt-get install python3 python3-numpy, or name one with --python PATH or STUDIO_PYTHON)`
    : `could not start '${python}': ${err.message}`;
}

/** Why loading failed, in words a user can act on (a missing numpy is the common case). */
export function loadProblem(python: string, why: string, stderr: string[]): string {
  const text = stderr.join('\n');
  if (/No module named 'numpy'/.test(text)) {
    return `the python interpreter '${python}' has no numpy, which Triton's python backend needs: install it (Debian: apt-get install python3-numpy; else pip install numpy) or name another interpreter with --python PATH or STUDIO_PYTHON`;
  }
  const tail = stderr.slice(-12).join('\n').trim();
  return `the python process ${why} while loading${tail ? `:\n${tail}` : ''}`;
}
