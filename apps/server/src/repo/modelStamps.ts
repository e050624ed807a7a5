import { readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import type { Repository } from './types.ts';

/**
 * What each model of `repo` is made of, as one string per model: its catalogue entry (the parsed config,
 * versions, error) and the name, size and modification time of every file in its model directory and
 * its latest version directory. Two stamps differ when a load must restart the model, as Triton's
 * repository poll decides by modification times.
 */
export async function modelStamps(repo: Repository): Promise<Map<string, string>> {
  const entries = Object.entries(repo.catalogue.models);
  const stamps = await Promise.all(
    entries.map(async ([name, model]) => {
      const dir = join(repo.dir, name);
      const latest = model.versions.at(-1);
      const files = await Promise.all([filesOf(dir), latest === undefined ? '' : filesOf(join(dir, String(latest)))]);
      return `${JSON.stringify(model)}\n${files.join('\n')}`;
    }),
  );
  return new Map(entries.map(([name], k) => [name, stamps[k]!]));
}

/**
 * The models a load of `name` restarts: `name` itself (Triton reloads the model it is asked to load) and
 * every model whose stamp changed, appeared or went away between `before` and `after`.
 */
export function modelsToReload(name: string, before: Map<string, string>, after: Map<string, string>): Set<string> {
  const out = new Set([name]);
  for (const [m, stamp] of after) if (before.get(m) !== stamp) out.add(m);
  for (const m of before.keys()) if (!after.has(m)) out.add(m);
  return out;
}

/** `dir`'s plain files as `name size mtime` lines, sorted; '' when it cannot be read. */
async function filesOf(dir: string): Promise<string> {
  try {
    const names = (await readdir(dir)).sort();
    const stats = await Promise.all(names.map((n) => stat(join(dir, n)).catch(() => undefined)));
    return names.map((n, k) => (stats[k]?.isFile() ? `${n} ${stats[k].size} ${stats[k].mtimeMs}` : '')).join('\n');
  } catch {
    return '';
  }
}
