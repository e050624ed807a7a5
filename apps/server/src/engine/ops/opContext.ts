import { readFileSync } from 'node:fs';
import { safeJoin } from '../../repo/safeJoin.ts';
import type { OpContext } from './registry.ts';

/**
 * The context ops read repository files through (the CTC dictionary): paths are resolved with the
 * repository's own `safeJoin` (no `..`, absolute paths or symlinks out of it) and cached.
 * @example createOpContext(repo.dir).readText('rec/ppocr_keys_v1.txt')
 */
export function createOpContext(repoDir: string): OpContext {
  const cache = new Map<string, string>();
  return {
    readText(path) {
      let text = cache.get(path);
      if (text === undefined) cache.set(path, (text = readFileSync(safeJoin(repoDir, path), 'utf8')));
      return text;
    },
  };
}
