import { realpathSync } from 'node:fs';
import { dirname, isAbsolute, relative as relativePath, resolve, sep } from 'node:path';

/** A repository-relative path that would leave the repository (or is malformed). */
export class PathError extends Error {
  readonly code = 'bad-path';
  constructor(message: string) {
    super(message);
    this.name = 'PathError';
  }
}

const ENCODED = /%(2f|5c|2e|00)/i;

/**
 * True when the absolute path `candidate` is `root` or lies below it (lexically: resolve symlinks first).
 * @example isInside('/srv/repos', '/srv/repos/a') === true; isInside('/srv/repos', '/srv/reposX') === false
 */
export function isInside(root: string, candidate: string): boolean {
  const rel = relativePath(root, candidate);
  return rel === '' || (!rel.startsWith('..') && !isAbsolute(rel));
}

/**
 * True when `candidate` is `root` or lies below it once symlinks are resolved (of each one's deepest existing part),
 * so a directory reached through a link to `root` counts as inside it.
 * @example isInsideReal('/srv/repo', '/tmp/link-to-repo/out') === true
 */
export function isInsideReal(root: string, candidate: string): boolean {
  return isInside(realpathOfExisting(resolve(root)), realpathOfExisting(resolve(candidate)));
}

/** The real path of `p`, or of its deepest existing ancestor joined with the rest. */
function realpathOfExisting(p: string): string {
  let cur = p;
  const rest: string[] = [];
  for (;;) {
    try {
      const real = realpathSync(cur);
      return rest.length === 0 ? real : resolve(real, ...rest.reverse());
    } catch {
      const parent = dirname(cur);
      if (parent === cur) return p;
      rest.push(cur.slice(parent.length).replace(/^[\\/]+/, ''));
      cur = parent;
    }
  }
}

/**
 * Joins a repository-relative POSIX path onto `repoDir`, refusing anything that could leave it:
 * `..` segments, absolute paths, backslashes, NUL, percent-encoded slashes or dots, and symlinks
 * whose target lies outside the repository (checked with realpath).
 * @throws PathError naming the problem.
 * @example safeJoin('/srv/repo', 'ocr/studio.json') === '/srv/repo/ocr/studio.json'
 */
export function safeJoin(repoDir: string, relative: string): string {
  if (typeof relative !== 'string' || relative === '') throw new PathError('empty path');
  if (relative.includes('\0')) throw new PathError('path contains a NUL byte');
  if (relative.includes('\\')) throw new PathError(`path "${relative}" contains a backslash`);
  if (ENCODED.test(relative)) throw new PathError(`path "${relative}" contains an encoded slash, dot or NUL`);
  if (isAbsolute(relative) || /^[a-zA-Z]:/.test(relative)) throw new PathError(`path "${relative}" is absolute`);
  if (relative.split('/').some((s) => s === '..')) throw new PathError(`path "${relative}" contains ".."`);
  const root = resolve(repoDir);
  const joined = resolve(root, relative);
  if (!isInside(root, joined)) throw new PathError(`path "${relative}" leaves the repository`);
  const realRoot = realpathOfExisting(root);
  if (!isInside(realRoot, realpathOfExisting(joined))) {
    throw new PathError(`path "${relative}" resolves through a symlink outside the repository`);
  }
  return joined.endsWith(sep) ? joined.slice(0, -1) : joined;
}

/**
 * True when `name` is usable as a single model/graph directory name (one path segment, safe chars).
 * @example isSafeName('ocr') === true; isSafeName('../x') === false
 */
export function isSafeName(name: unknown): name is string {
  return (
    typeof name === 'string' && /^[A-Za-z0-9_][A-Za-z0-9_.-]{0,127}$/.test(name) && name !== '.' && !name.includes('..')
  );
}
